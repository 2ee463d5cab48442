import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { clientAddress } from '../../http/client-address';
import type { Device } from '../../services/users/sessions';
import { fromOwnSite, sameToken } from '../security';
import { clearWebCookie, readWebCookie, setWebCookie } from '../session';
import { createFormTokens } from './form-token';

const FORM_COOKIE = 'gw_autentificare';

/**
 * The CSRF check of the forms shown before a session exists (sign-in, sign-up, "Am uitat
 * parola", a link's password): a signed double-submit token (form-token.ts), as a cookie and as
 * the `_csrf` field, with the same-site check of every form.
 */
export function createPublicForms(ctx: AppContext) {
  const tokens = createFormTokens(ctx.keyring.deriveKey('login-form-token'), ctx.clock);
  return {
    /** A fresh token for the page's form, its cookie set on the answer. */
    issue(c: Context): string {
      const token = tokens.issue();
      setWebCookie(c, ctx, FORM_COOKIE, token, 'Strict');
      return token;
    },
    /** Whether the posted `_csrf` is the cookie's, issued by us, unexpired, from our own site. */
    valid(c: Context, posted: string | undefined): boolean {
      const cookie = readWebCookie(c, ctx, FORM_COOKIE) ?? '';
      return fromOwnSite(c) && sameToken(posted, cookie) && tokens.valid(cookie);
    },
    /** The form's work is done (signed in): its cookie goes. */
    done(c: Context) {
      clearWebCookie(c, ctx, FORM_COOKIE);
    },
  };
}

/** The browser and address a new session is opened from (the user's list of devices). */
export const deviceOf = (c: Context, ctx: AppContext): Device => ({ userAgent: c.req.header('user-agent'), address: clientAddress(c, ctx.config) });
