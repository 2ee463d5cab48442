import { RegistryNetworkError } from './registry/client';

export interface AccountLimiter {
  /**
   * Waits for one of the account's `limit` registry slots and returns its release. An abort
   * while waiting (shutdown) rejects as an aborted call, so the submission is released, not failed.
   */
  acquire(accountId: number, signal: AbortSignal): Promise<() => void>;
  /** Calls in flight for the account right now, in this process. */
  active(accountId: number): number;
}

/**
 * The per-account concurrency limit on registry calls. It is this process's, and it holds for
 * the whole deployment: an account is sent by one worker at a time (worker/claim.ts). Sends wait
 * here without touching the database. The claim lets a few more rows per account be `sending`
 * (prepared, or being recorded) than may call the registry, so database work never idles a
 * registry slot.
 */
export function createAccountLimiter(limit: number): AccountLimiter {
  const active = new Map<number, number>();
  const waiting = new Map<number, Array<() => void>>();

  function release(accountId: number) {
    const next = waiting.get(accountId)?.shift();
    if (next) return next(); // the slot passes straight to the next waiter
    active.set(accountId, (active.get(accountId) ?? 1) - 1);
  }

  async function acquire(accountId: number, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) throw new RegistryNetworkError('shutting down', 0, true);
    const once = () => {
      let released = false;
      return () => {
        if (released) return;
        released = true;
        release(accountId);
      };
    };
    if ((active.get(accountId) ?? 0) < limit) {
      active.set(accountId, (active.get(accountId) ?? 0) + 1);
      return once();
    }
    return new Promise((resolve, reject) => {
      const queue = waiting.get(accountId) ?? [];
      waiting.set(accountId, queue);
      const grant = () => {
        signal.removeEventListener('abort', onAbort);
        resolve(once());
      };
      const onAbort = () => {
        const i = queue.indexOf(grant);
        if (i >= 0) queue.splice(i, 1);
        reject(new RegistryNetworkError('shutting down', 0, true));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(grant);
    });
  }

  return {
    active: (accountId) => active.get(accountId) ?? 0,
    acquire,
  };
}
