/**
 * A staging in the background gives way to other accounts' requests: while another account
 * was served in the last ACTIVE_MS, each chunk a rest thread stages waits GIVE_WAY_MS before
 * the next is let out. A lone import (its own status polls included) runs at full speed.
 *
 * Why: a staging's threads run under SCHED_IDLE, so they take no core a request wants, but
 * what they allocate and read still evicts what the request would find in the caches. Two
 * stagings at once doubled another account's p95 (bench:uploads, while they stage: 7.8–9.5 ms,
 * quiet 3.5–5.3); a 60 ms pause per chunk of 512 rows brought it to 5.4–6.6 ms, the stagings
 * taking ~2.3 × as long. Pausing only while a request was in flight did not help: the caches
 * were already cold when it came.
 */
export const GIVE_WAY_MS = 60;
/** How recent another account's request must be for a staging to give way. */
export const ACTIVE_MS = 1_000;

export interface AccountActivity {
  /** An account's request was served (its uploads' own requests are not counted). */
  served(accountId: number): void;
  /** Resolves at once, or after GIVE_WAY_MS when an account other than `accountId` was served in the last ACTIVE_MS. */
  giveWay(accountId: number): Promise<void>;
}

export function createAccountActivity(now: () => number = () => performance.now()): AccountActivity {
  // The account served last, and the last one served before it that was another account:
  // enough to tell, for any account, when another one was last served.
  let latest = { accountId: 0, at: Number.NEGATIVE_INFINITY };
  let before = { accountId: 0, at: Number.NEGATIVE_INFINITY };
  return {
    served(accountId) {
      if (accountId !== latest.accountId) before = latest;
      latest = { accountId, at: now() };
    },
    giveWay(accountId) {
      const other = latest.accountId !== accountId ? latest : before;
      if (now() - other.at > ACTIVE_MS) return Promise.resolve();
      return new Promise((resolve) => setTimeout(resolve, GIVE_WAY_MS));
    },
  };
}
