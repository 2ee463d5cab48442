import type { Config } from '../../config';
import type { HashLane } from '../../crypto/hash-gate';
import { sha256Hex } from '../../crypto/hash';
import { windowCounter } from '../../http/rate-limit';
import type { WindowSync } from '../../http/window-sync';

const MINUTE_MS = 60_000;
const LOCKOUT_MS = 15 * MINUTE_MS;

export interface SignInAttempt {
  address: string;
  /** Normalised. */
  email: string;
  /** The nonce of a valid device cookie for this e-mail, or null. */
  device: string | null;
}

export type Admission =
  | { admitted: true; lane: HashLane /** Takes the attempt back: it succeeded, or no password was tried. */; release: () => void }
  | { admitted: false; retryAfterS: number };

/**
 * Which limits a sign-in attempt counts against, in one place. Every attempt counts against
 * its client address (GATEWAY_AUTH_FAILURES_PER_MIN a minute). A browser with a device cookie
 * for the e-mail counts against that cookie (GATEWAY_LOGIN_FAILURES_PER_EMAIL in 15 minutes, so
 * a stolen cookie gives no more guesses than the address's own limit) and hashes in the
 * trusted lane; once that cookie is locked out, or without one, the attempt counts against the
 * e-mail's limit shared by every untrusted client. A success is taken back from the counters.
 * With `sync` (every server), the counts are the deployment's (http/window-sync.ts).
 */
export function createSignInLimits(config: Pick<Config, 'GATEWAY_AUTH_FAILURES_PER_MIN' | 'GATEWAY_LOGIN_FAILURES_PER_EMAIL'>, sync?: WindowSync) {
  const perAddress = windowCounter({ windowMs: MINUTE_MS, scope: 'login_adresa', sync });
  const perEmail = windowCounter({ windowMs: LOCKOUT_MS, scope: 'login_email', sync });
  const perDevice = windowCounter({ windowMs: LOCKOUT_MS, scope: 'login_dispozitiv', sync });
  const maxPerLockout = config.GATEWAY_LOGIN_FAILURES_PER_EMAIL;

  return {
    admit(attempt: SignInAttempt): Admission {
      const addressHit = perAddress.hit(attempt.address);
      const deviceHit = attempt.device === null ? null : perDevice.hit(attempt.device);
      const trusted = deviceHit !== null && deviceHit.count <= maxPerLockout;
      const emailKey = sha256Hex(attempt.email);
      const emailHit = trusted ? null : perEmail.hit(emailKey);
      const addressOver = addressHit.count > config.GATEWAY_AUTH_FAILURES_PER_MIN;
      const emailOver = emailHit !== null && emailHit.count > maxPerLockout;
      if (addressOver || emailOver) {
        return { admitted: false, retryAfterS: Math.max(addressOver ? addressHit.retryAfterS : 0, emailOver ? emailHit.retryAfterS : 0) };
      }
      return {
        admitted: true,
        lane: trusted ? 'trusted' : 'untrusted',
        release: () => {
          perAddress.release(attempt.address);
          if (trusted && attempt.device !== null) perDevice.release(attempt.device);
          else perEmail.release(emailKey);
        },
      };
    },
  };
}
