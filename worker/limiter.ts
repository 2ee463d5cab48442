import type { DeploymentSlots } from './deployment-slots';
import { RegistryNetworkError } from './registry/client';

export interface AccountLimiter {
  /**
   * Waits for one of the account's `limit` registry slots and returns its release. An abort
   * while waiting (shutdown) rejects as an aborted call, so the submission is released, not failed.
   */
  acquire(accountId: number, signal: AbortSignal): Promise<() => void>;
  /** Calls in flight for the account right now, in this process. */
  active(accountId: number): number;
  /** Frees the deployment's slots this process holds. */
  close(): Promise<void>;
}

/**
 * The per-account concurrency limit on registry calls: first in this process (sends wait here
 * without touching the database), then for the whole deployment (`slots`, shared with every
 * other worker through PostgreSQL). The claim lets a few more rows per account be `sending`
 * (prepared, or being recorded) than may call the registry, so database work never idles a
 * registry slot.
 */
export function createAccountLimiter(limit: number, slots?: DeploymentSlots): AccountLimiter {
  const active = new Map<number, number>();
  const waiting = new Map<number, Array<() => void>>();

  function release(accountId: number) {
    const next = waiting.get(accountId)?.shift();
    if (next) return next(); // the slot passes straight to the next waiter
    active.set(accountId, (active.get(accountId) ?? 1) - 1);
  }

  async function local(accountId: number, signal: AbortSignal): Promise<() => void> {
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
    async acquire(accountId, signal) {
      const releaseLocal = await local(accountId, signal);
      if (!slots) return releaseLocal;
      let giveBack: () => Promise<void>;
      try {
        giveBack = await slots.take(accountId, signal);
      } catch (error) {
        if (error instanceof RegistryNetworkError) {
          releaseLocal();
          throw error;
        }
        // The database cannot be asked (a failover): this process's limit still holds, and the
        // send's outcome cannot be recorded before it is back anyway.
        return releaseLocal;
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        // The deployment's slot first, so the next local waiter finds it free.
        void giveBack().finally(releaseLocal);
      };
    },
    close: async () => slots?.close(),
  };
}
