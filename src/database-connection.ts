import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { checkServerIdentity, type ConnectionOptions, type PeerCertificate } from 'node:tls';
import type { DbConnection } from '../db/client';
import { ConfigError, type Config } from './config';

const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
type SslMode = (typeof SSL_MODES)[number];

/** libpq's TLS parameters we do not read: postgres.js would pass them on to the server as settings, which refuses them. */
const UNREAD = ['sslrootcert', 'sslcert', 'sslkey', 'sslpassword', 'sslcrl', 'sslcrldir'];

const invalid = (name: string, message: string) => new ConfigError(`Invalid configuration:\n  ${name}: ${message}`);

function readCa(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw invalid('GATEWAY_DB_CA_FILE', `cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw invalid('GATEWAY_DB_CA_FILE', `${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return text;
}

/**
 * postgres.js's `ssl` for a URL's sslmode, as libpq reads it: `verify-full` checks the chain
 * and that the URL's host is a name (or address) of the certificate, `verify-ca` the chain
 * alone, `require` encrypts without checking unless a CA is given (then it is `verify-ca`, as
 * in libpq). The chain is checked against the CA file, else the system's CAs. A CA file with a
 * mode that checks nothing is refused: its operator meant the check.
 */
function tlsFor(url: URL, ca: string | undefined): DbConnection['ssl'] {
  const given = url.searchParams.get('sslmode');
  if (given !== null && !SSL_MODES.includes(given as SslMode)) throw invalid('DATABASE_URL', `sslmode=${given} is not one of ${SSL_MODES.join(', ')}`);
  const mode = given as SslMode | null;
  if (ca !== undefined && (mode === null || mode === 'disable' || mode === 'allow' || mode === 'prefer')) {
    throw invalid('GATEWAY_DB_CA_FILE', `is set, but DATABASE_URL's sslmode (${mode ?? 'none'}) checks no certificate: add ?sslmode=verify-full`);
  }
  if (mode === null) return undefined;
  if (mode === 'disable') return false;
  if (mode === 'allow' || mode === 'prefer') return 'prefer';
  if (mode === 'require' && ca === undefined) return 'require';
  const host = decodeURIComponent(url.hostname).replace(/^\[|\]$/g, '');
  const chain: ConnectionOptions = { rejectUnauthorized: true, ...(ca === undefined ? {} : { ca }) };
  if (mode !== 'verify-full') return { ...chain, checkServerIdentity: () => undefined };
  // Named here rather than by postgres.js, which checks an address host against "localhost".
  return { ...chain, ...(isIP(host) ? {} : { servername: host }), checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(host, cert) };
}

/**
 * How this process connects to `url`: TLS from its sslmode and GATEWAY_DB_CA_FILE (read here,
 * at start), and the timeouts every session is given. A setting that cannot work stops the
 * process with a message naming it.
 */
export function databaseConnection(config: Config, url: string): DbConnection {
  const parsed = new URL(url);
  const unread = UNREAD.filter((name) => parsed.searchParams.has(name));
  if (unread.length > 0) {
    throw invalid('DATABASE_URL', `${unread.join(', ')} is not read here: give the CA in GATEWAY_DB_CA_FILE (client certificates are not supported)`);
  }
  const ca = config.GATEWAY_DB_CA_FILE === undefined ? undefined : readCa(config.GATEWAY_DB_CA_FILE);
  const parameters: NonNullable<DbConnection['parameters']> = {};
  if (config.GATEWAY_DB_STATEMENT_TIMEOUT_S > 0) parameters.statement_timeout = config.GATEWAY_DB_STATEMENT_TIMEOUT_S * 1000;
  if (config.GATEWAY_DB_IDLE_TX_TIMEOUT_S > 0) parameters.idle_in_transaction_session_timeout = config.GATEWAY_DB_IDLE_TX_TIMEOUT_S * 1000;
  const ssl = tlsFor(parsed, ca);
  return { ...(ssl === undefined ? {} : { ssl }), ...(Object.keys(parameters).length > 0 ? { parameters } : {}) };
}

/** A connection error that TLS explains, said in the operator's terms; any other as it is. */
export function explainConnectionError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  // postgres.js goes on with TLS after a server that answered it has none; the server then hangs up.
  if (/before secure TLS connection was established/.test(error.message)) {
    return new ConfigError(
      `The database closed the connection before TLS was established (${code}): it does not offer TLS (ssl=off?) while DATABASE_URL's sslmode asks for it. Turn TLS on in PostgreSQL, or check the address.`,
    );
  }
  const certificate = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT_ALTNAME_INVALID|UNABLE_TO_GET_ISSUER/.test(code);
  if (!certificate) return error;
  return new ConfigError(
    `The database's TLS certificate was refused (${code}: ${error.message}). GATEWAY_DB_CA_FILE must be the CA that signed it, and with sslmode=verify-full DATABASE_URL's host must be a name or address the certificate holds.`,
  );
}
