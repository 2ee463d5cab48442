import { readFileSync } from 'node:fs';
import { createTransport } from 'nodemailer';
import type { Config } from '../../config';

/** An e-mail in Romanian, as plain text and as HTML of the same words. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** Long enough for a slow server, short enough that an administrator's form does not hang. */
const TIMEOUT_MS = 15_000;

/**
 * The SMTP client of GATEWAY_SMTP_URL, or null when none is set (links are then shown to the
 * administrator instead). `smtp://` requires STARTTLS (the address's `?requireTLS=false` is the
 * operator's explicit exception), `smtps://` is TLS from the first byte; the certificate is
 * checked against the system's CAs or GATEWAY_SMTP_CA_FILE. Only the recipient and the outcome
 * are ever logged by the callers, never the body (it carries a link's token).
 */
export function createMailer(config: Pick<Config, 'GATEWAY_SMTP_URL' | 'GATEWAY_MAIL_FROM' | 'GATEWAY_SMTP_CA_FILE'>): Mailer | null {
  const url = config.GATEWAY_SMTP_URL;
  if (!url || !config.GATEWAY_MAIL_FROM) return null;
  const ca = config.GATEWAY_SMTP_CA_FILE ? readFileSync(config.GATEWAY_SMTP_CA_FILE, 'utf8') : undefined;
  const address = new URL(url);
  const secure = address.protocol === 'smtps:';
  const transport = createTransport({
    // Read here, not by nodemailer's `url` option: with it, the `tls` options below were dropped.
    host: address.hostname,
    port: address.port ? Number(address.port) : secure ? 465 : 587,
    secure,
    auth: address.username ? { user: decodeURIComponent(address.username), pass: decodeURIComponent(address.password) } : undefined,
    requireTLS: address.searchParams.get('requireTLS') !== 'false',
    tls: { minVersion: 'TLSv1.2', ...(ca ? { ca } : {}) },
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
    logger: false,
  });
  const from = config.GATEWAY_MAIL_FROM;
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, textEncoding: 'quoted-printable' });
    },
  };
}
