import { describe, expect, it } from 'vitest';
import { createUploadGate } from '../../src/services/import/queue';

// A storm of admitted uploads wrote its files into the queue on every pooled connection at once
// (each INSERT holds one for seconds), and another account's request waited for a connection:
// the gate lets `writes` of them run at once, the rest in turn.

describe("the upload gate's file writes", () => {
  it('runs at most `writes` at once, the others in arrival order, and frees the place on failure', async () => {
    const gate = createUploadGate({ uploads: 16, perAccount: 2, writes: 2 });
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const write = (n: number, fail = false) =>
      gate.write(async () => {
        running += 1;
        most = Math.max(most, running);
        order.push(n);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
        if (fail) throw new Error(`write ${n} failed`);
        return n;
      });
    const writes = [write(1, true), write(2), write(3), write(4)];
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([1, 2]);
    releases.shift()!();
    await expect(writes[0]).rejects.toThrow('write 1 failed');
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([1, 2, 3]);
    while (releases.length > 0) {
      releases.shift()!();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(writes.slice(1))).toEqual([2, 3, 4]);
    expect(most).toBe(2);
    // All places back: two more start at once.
    const again = [write(5), write(6)];
    await new Promise((r) => setImmediate(r));
    expect(order.slice(-2)).toEqual([5, 6]);
    for (const release of releases.splice(0)) release();
    await Promise.all(again);
  });
});
