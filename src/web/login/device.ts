import { randomBytes } from 'node:crypto';
import { createTagger } from '../../crypto/mac';

/** A workshop PC is shared: it remembers this many people who signed in on it, newest first. */
const MAX_ENTRIES = 5;
const ENTRY = /^[\w-]{22}\.[\w-]{22}$/;

export const DEVICE_COOKIE = 'gw_dispozitiv';
/** The longest a browser remembers it (browsers cap cookies at 400 days). */
export const DEVICE_MAX_AGE_S = 365 * 24 * 60 * 60;
/** Five entries of 45 characters and their separators, with room. */
export const DEVICE_COOKIE_MAX_LENGTH = 300;

/**
 * OWASP's device cookies ("Slow down online guessing attacks with device cookies"): a browser
 * that signed in as an e-mail address carries proof of it, and a sign-in for that address from
 * that browser is not held by the address's lock-out, which any stranger can trigger. An entry
 * is `<nonce>.<tag>`, the tag an HMAC of the nonce and the e-mail under a key derived from the
 * master key: the cookie names no address, cannot be made up, and the nonce names the device
 * for its own failure limit.
 */
export function createDeviceCookies(key: Buffer) {
  const tagger = createTagger(key);
  const entries = (cookie: string | undefined) =>
    (cookie ?? '')
      .split('~')
      .filter((entry) => ENTRY.test(entry))
      .slice(0, MAX_ENTRIES);
  const isFor = (entry: string, email: string) => {
    const [nonce = '', tag = ''] = entry.split('.');
    return tagger.verify(tag, 'device', nonce, email);
  };

  return {
    /** The nonce of the cookie's entry for `email` (a normalised address), or null. */
    deviceFor(cookie: string | undefined, email: string): string | null {
      const entry = entries(cookie).find((e) => isFor(e, email));
      return entry ? entry.slice(0, entry.indexOf('.')) : null;
    },
    /** The cookie after a sign-in as `email`: a fresh entry for it first, the others kept. */
    afterSignIn(cookie: string | undefined, email: string): string {
      const nonce = randomBytes(16).toString('base64url');
      const fresh = `${nonce}.${tagger.tag('device', nonce, email)}`;
      return [fresh, ...entries(cookie).filter((e) => !isFor(e, email))].slice(0, MAX_ENTRIES).join('~');
    },
  };
}
