import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SMTPServer } from 'smtp-server';

/** One message the test server accepted, with what the connection was. */
export interface ReceivedMail {
  to: string[];
  raw: string;
  /** Whether the message travelled over TLS (STARTTLS on the plain port). */
  secure: boolean;
  user: string | undefined;
}

/** Quoted-printable as nodemailer writes a body: soft breaks and =XX bytes. */
function decodeQuotedPrintable(text: string): string {
  const joined = text.replace(/=\r?\n/g, '');
  return Buffer.from(
    joined.replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

/**
 * An SMTP server in this process, as a workshop's mail provider would be: STARTTLS on a plain
 * port with a certificate for `localhost` signed by a CA of its own (`caFile`, for
 * GATEWAY_SMTP_CA_FILE), login required (user `gateway`, password `parola-smtp`), every message kept.
 */
export async function startSmtpServer() {
  const dir = mkdtempSync(join(tmpdir(), 'gw-smtp-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ecKey, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=test-ca');
  openssl('req', ...ecKey, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=DNS:localhost\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'san.ext');

  const received: ReceivedMail[] = [];
  const waiting: Array<() => void> = [];
  const server = new SMTPServer({
    secure: false,
    key: readFileSync(join(dir, 'server.key')),
    cert: readFileSync(join(dir, 'server.crt')),
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === 'gateway' && auth.password === 'parola-smtp') callback(null, { user: auth.username });
      else callback(new Error('Autentificare SMTP refuzată'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8'), secure: session.secure, user: session.user });
        for (const wake of waiting.splice(0)) wake();
        callback();
      });
    },
    logger: false,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  return {
    received,
    caFile: join(dir, 'ca.crt'),
    /** The gateway's settings for this server (localhost: the name its certificate has). */
    env: { GATEWAY_SMTP_URL: `smtp://gateway:parola-smtp@localhost:${port}`, GATEWAY_MAIL_FROM: 'Gateway prezentări <gateway@test.ro>', GATEWAY_SMTP_CA_FILE: join(dir, 'ca.crt') },
    /** The next message to `to` (one already received counts), within `timeoutMs`. */
    async mailTo(to: string, timeoutMs = 10_000): Promise<ReceivedMail & { text: string }> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const mail = received.find((m) => m.to.includes(to));
        if (mail) return { ...mail, text: decodeQuotedPrintable(mail.raw) };
        if (Date.now() > deadline) throw new Error(`no e-mail to ${to}`);
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    /** The first link to `path` in a decoded message. */
    linkIn(text: string, path: string): string {
      const match = new RegExp(`https?://[^\\s"<]+${path}\\?t=[\\w-]+`).exec(text);
      if (!match) throw new Error(`no ${path} link in the e-mail`);
      return match[0];
    },
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type TestSmtp = Awaited<ReturnType<typeof startSmtpServer>>;
