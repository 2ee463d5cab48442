import { randomBytes } from 'node:crypto';
import { createTagger } from '../../crypto/mac';

/** Long enough to fill in a form after a pause; short enough that a token fetched to plant is soon dead. */
const LIFETIME_S = 2 * 60 * 60;

/**
 * The sign-in form's CSRF token, before any session exists: `<nonce>.<expires>.<tag>`, sent
 * both as a cookie and as the `_csrf` field (double submit). The tag is an HMAC under a key
 * derived from the master key, so a cookie and field an attacker makes up (planted through a
 * sibling site, or over plain HTTP) are refused; a real one expires after two hours.
 */
export function createFormTokens(key: Buffer, clock: () => Date) {
  const tagger = createTagger(key);
  const nowS = () => Math.floor(clock().getTime() / 1000);
  return {
    issue(): string {
      const nonce = randomBytes(18).toString('base64url');
      const expires = String(nowS() + LIFETIME_S);
      return `${nonce}.${expires}.${tagger.tag('login-form', nonce, expires)}`;
    },
    /** Whether the server issued `token` and it has not expired. */
    valid(token: string): boolean {
      const [nonce, expires, tag, ...rest] = token.split('.');
      if (!nonce || !expires || !tag || rest.length > 0 || !/^\d{1,12}$/.test(expires)) return false;
      return Number(expires) > nowS() && tagger.verify(tag, 'login-form', nonce, expires);
    },
  };
}
