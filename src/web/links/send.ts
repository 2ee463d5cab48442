import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { describeError } from '../../journal/describe-error';
import type { Mail, Mailer } from '../../services/mail/mailer';

/** The paths a link opens; the token travels in the query, which no log of a path ever holds. */
export const LINK_PATH = { invitatie: '/invitatie', resetare: '/parola-noua' } as const;

/**
 * A link's whole address. An e-mailed link is always on GATEWAY_PUBLIC_URL (config.ts requires
 * it with SMTP): never on the request's Host, which whoever asks for a reset could choose. A
 * link shown to the administrator may use the address their browser reached.
 */
export function linkAddress(c: Context, ctx: AppContext, kind: keyof typeof LINK_PATH, token: string): string {
  const base = ctx.config.GATEWAY_PUBLIC_URL?.replace(/\/+$/, '') ?? new URL(c.req.url).origin;
  return `${base}${LINK_PATH[kind]}?t=${token}`;
}

/** Sends `mail`; a failure is journaled (never its body: it holds the link) and returned as false. */
export async function sendMail(ctx: AppContext, mailer: Mailer, mail: Mail, what: { tip: string; id: number; requestId: string; accountId?: number }): Promise<boolean> {
  try {
    await mailer.send(mail);
    return true;
  } catch (error) {
    ctx.journal.write({
      event: 'email_failed',
      level: 'error',
      requestId: what.requestId,
      accountId: what.accountId,
      data: { tip: what.tip, link_id: what.id, error: describeError(error) },
    });
    return false;
  }
}
