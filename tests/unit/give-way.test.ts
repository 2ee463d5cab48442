import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ACTIVE_MS, createAccountActivity, GIVE_WAY_MS } from '../../src/services/import/give-way';

let now = 0;
beforeEach(() => {
  vi.useFakeTimers();
  now = 10_000;
});
afterEach(() => vi.useRealTimers());

/** Whether `giveWay` made the staging wait: it resolves at once, or only after GIVE_WAY_MS. */
async function waits(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await vi.advanceTimersByTimeAsync(0);
  if (done) return false;
  await vi.advanceTimersByTimeAsync(GIVE_WAY_MS - 1);
  expect(done).toBe(false);
  await vi.advanceTimersByTimeAsync(1);
  expect(done).toBe(true);
  return true;
}

it("waits only while another account's request was served lately: never for the account's own", async () => {
  const activity = createAccountActivity(() => now);
  expect(await waits(activity.giveWay(1))).toBe(false);
  activity.served(1);
  expect(await waits(activity.giveWay(1))).toBe(false);
  now += 10;
  activity.served(2);
  expect(await waits(activity.giveWay(1))).toBe(true);
  // Account 1 was served 10 ms earlier: account 2's staging gives way to it.
  expect(await waits(activity.giveWay(2))).toBe(true);
  now += ACTIVE_MS - 10;
  expect(await waits(activity.giveWay(1))).toBe(true);
  expect(await waits(activity.giveWay(2))).toBe(true);
  now += 1;
  expect(await waits(activity.giveWay(2))).toBe(false);
  now += 10;
  expect(await waits(activity.giveWay(1))).toBe(false);
});

it('remembers another account behind a run of requests of one account', async () => {
  const activity = createAccountActivity(() => now);
  activity.served(1);
  now += 100;
  for (let i = 0; i < 50; i++) activity.served(2);
  // Account 2's staging still sees account 1, served 100 ms ago; account 3's sees both.
  expect(await waits(activity.giveWay(2))).toBe(true);
  expect(await waits(activity.giveWay(3))).toBe(true);
  now += ACTIVE_MS - 50;
  expect(await waits(activity.giveWay(2))).toBe(false);
  expect(await waits(activity.giveWay(1))).toBe(true);
});
