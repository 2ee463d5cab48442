import { windowCounter } from '../../http/rate-limit';
import type { WindowSync } from '../../http/window-sync';

const MINUTE_MS = 60_000;
/** A person checks a key or two; more is someone guessing keys through the dashboard. */
export const KEY_TESTS_PER_USER = 10;
/** Several users of a workshop share an address: a little more room there. */
export const KEY_TESTS_PER_ADDRESS = 30;

/**
 * The key tester's limits, per signed-in user and per client address, each a one-minute window.
 * Every test counts, valid or not: a guesser learns as much from a valid answer as from an
 * invalid one. Past either limit the answer is 429 with the seconds to wait. With `sync` (every
 * server), the counts are the deployment's (http/window-sync.ts).
 */
export function createKeyTestLimits(sync?: WindowSync) {
  const perUser = windowCounter({ windowMs: MINUTE_MS, scope: 'test_cheie_utilizator', sync });
  const perAddress = windowCounter({ windowMs: MINUTE_MS, scope: 'test_cheie_adresa', sync });
  return {
    admit(userId: number, address: string): { admitted: true } | { admitted: false; retryAfterS: number } {
      const user = perUser.hit(String(userId));
      const place = perAddress.hit(address);
      const over = [user.count > KEY_TESTS_PER_USER ? user.retryAfterS : 0, place.count > KEY_TESTS_PER_ADDRESS ? place.retryAfterS : 0];
      const wait = Math.max(...over);
      return wait > 0 ? { admitted: false, retryAfterS: wait } : { admitted: true };
    },
  };
}
