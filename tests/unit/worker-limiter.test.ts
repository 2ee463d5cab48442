import { describe, expect, it } from 'vitest';
import { createAccountLimiter } from '../../worker/limiter';
import { RegistryNetworkError } from '../../worker/registry/client';

describe('per-account limiter', () => {
  it('lets `limit` calls per account run, queues the rest, hands a freed slot to the next', async () => {
    const limiter = createAccountLimiter(2);
    const signal = new AbortController().signal;
    const a = await limiter.acquire(1, signal);
    const b = await limiter.acquire(1, signal);
    const other = await limiter.acquire(2, signal);
    let third = false;
    const waiting = limiter.acquire(1, signal).then((release) => {
      third = true;
      return release;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    expect(limiter.active(1)).toBe(2);
    a();
    a(); // a second release of the same slot is ignored
    (await waiting)();
    expect(third).toBe(true);
    b();
    other();
    expect(limiter.active(1)).toBe(0);
    expect(limiter.active(2)).toBe(0);
  });

  it('an abort while waiting (shutdown) rejects as an aborted call and leaves the slot count intact', async () => {
    const limiter = createAccountLimiter(1);
    const controller = new AbortController();
    const held = await limiter.acquire(1, controller.signal);
    const waiting = limiter.acquire(1, controller.signal);
    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(RegistryNetworkError);
    await expect(waiting).rejects.toMatchObject({ aborted: true });
    held();
    expect(limiter.active(1)).toBe(0);
  });
});
