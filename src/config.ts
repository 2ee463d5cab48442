import { z } from 'zod';
import { maxSubmissionJsonBytes } from './domain/submission-input';
import { parseProxyEntry } from './http/client-address';

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes', 'on'].includes(v)));

const base64Key = z
  .string()
  .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be base64 of exactly 32 bytes')
  .optional();

/** Every setting the product reads, parsed once at start-up. Nothing else reads process.env. */
export const Config = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Loopback by default: the API holds registry credentials, so it is reachable from outside
  // only when the operator says so (HOST=0.0.0.0 in a container, behind a proxy).
  HOST: z.string().min(1).default('127.0.0.1'),
  // The address clients reach the gateway at (behind a proxy, a LAN name): the integration
  // page's examples and the collection carry it. Unset: http://127.0.0.1:$PORT.
  GATEWAY_PUBLIC_URL: z
    .string()
    .url()
    .refine((v) => /^https?:\/\//i.test(v), 'must be an http(s) address')
    .optional(),
  DATABASE_URL: z.string().url().optional(),
  GATEWAY_REQUIRE_API_KEY: bool(true),
  GATEWAY_SECRET_KEY: base64Key,
  // Earlier master keys, comma-separated, kept only to decrypt what they encrypted.
  GATEWAY_OLD_SECRET_KEYS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(',')
            .map((k) => k.trim())
            .filter(Boolean)
        : [],
    )
    .pipe(z.array(z.string().refine((k) => Buffer.from(k, 'base64').length === 32, 'each must be base64 of 32 bytes'))),
  // The passphrase backup archives are encrypted under (`npm run backup`, `restore`), or a file
  // that holds it (the file wins); never a command-line argument, which other users can read.
  GATEWAY_BACKUP_PASSPHRASE: z.string().optional(),
  GATEWAY_BACKUP_PASSPHRASE_FILE: z.string().min(1).optional(),
  GATEWAY_DATA_DIR: z.string().min(1).default('./.data'),
  GATEWAY_REGISTRY_URL: z.string().url().optional(),
  GATEWAY_SIM_USERS: z.string().default('demo:demo'),
  GATEWAY_SIM_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  GATEWAY_SENDING_STALE_S: z.coerce.number().int().positive().default(60),
  GATEWAY_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 1024 * 1024),
  // A JSON body (413 PREA_MARE above, as it arrives). Unset: the longest a submission needs,
  // derived from GATEWAY_MAX_IMAGE_BYTES and the fields' bounds (maxSubmissionJsonBytes; about
  // 14.1 MiB with the default photo), so that a lower photo limit lowers it too.
  GATEWAY_MAX_JSON_BYTES: z.coerce.number().int().positive().optional(),
  // A submission's photo (b64Image), decoded; a larger one is a 413 IMAGINE_PREA_MARE.
  GATEWAY_MAX_IMAGE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  // File import limits (docs/import.md): data rows per file, and the inflated size of an xlsx.
  GATEWAY_IMPORT_MAX_ROWS: z.coerce.number().int().positive().default(100_000),
  GATEWAY_IMPORT_MAX_UNCOMPRESSED_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(200 * 1024 * 1024),
  // A stager stages this many rows in a first transaction of their own, so that the screen and
  // the preview show them while the rest of the file is staged: five of the screen's pages,
  // two and a half of the API's. Each row more is waited for before the first page.
  GATEWAY_IMPORT_FIRST_ROWS: z.coerce.number().int().positive().default(250),
  // Files waiting or being staged, in the whole deployment and of one account (also the bodies
  // one server reads at once). Past them an upload is refused at once (503, 429), before its
  // body is read. Each waits in PostgreSQL, encrypted, until a stager takes it.
  GATEWAY_IMPORT_UPLOADS_MAX: z.coerce.number().int().positive().default(16),
  GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: z.coerce.number().int().positive().default(2),
  // Stagers (docs/import.md): how many processes `npm start` runs beside the server (0: none;
  // `npm run stager` starts one alone, on any machine); how often a staging renews its claim;
  // a claim not renewed for GATEWAY_IMPORT_STALE_S (its stager died or lost the database) is
  // taken up again by another stager.
  GATEWAY_STAGERS: z.coerce.number().int().min(0).default(1),
  // A stager's nice value, the whole process's (19, the lowest priority: the server and the
  // worker on the same machine go first; 0 on a machine that only stages).
  GATEWAY_STAGER_NICE: z.coerce.number().int().min(0).max(19).default(19),
  GATEWAY_IMPORT_HEARTBEAT_S: z.coerce.number().int().positive().default(5),
  GATEWAY_IMPORT_STALE_S: z.coerce.number().int().positive().default(30),
  // Connections of the server's database pool.
  GATEWAY_DB_POOL: z.coerce.number().int().min(2).default(20),
  // The worker's pool; unset, GATEWAY_WORKER_MAX_INFLIGHT + 4, at most 20. Three at least: a
  // claim and a login each hold one for a moment, the tasks and sends share the rest (LISTEN
  // has one of its own).
  GATEWAY_WORKER_DB_POOL: z.coerce.number().int().min(3).optional(),
  // A managed PostgreSQL (docs/operations.md): the PEM file of the CA that signed the
  // database's certificate, for DATABASE_URL's sslmode=verify-full (read at start).
  GATEWAY_DB_CA_FILE: z.string().min(1).optional(),
  // Asked of every connection at its start (0: the database's or role's own setting): a
  // statement running longer is cancelled; a transaction idle longer ends its session.
  GATEWAY_DB_STATEMENT_TIMEOUT_S: z.coerce.number().int().min(0).default(0),
  GATEWAY_DB_IDLE_TX_TIMEOUT_S: z.coerce.number().int().min(0).default(0),
  // SIGTERM or Ctrl-C: the whole stop (requests, stagers, worker, database) takes at most this,
  // during the start as well (initdb, the database's first start, the migrations are ended).
  GATEWAY_SHUTDOWN_S: z.coerce.number().positive().default(30),
  GATEWAY_RUN_WORKER: bool(true),
  // Abuse limits (docs/operations.md, Security): failed authentications per client address and minute,
  // requests per API key and minute, and per second on one server (0: no limit).
  GATEWAY_AUTH_FAILURES_PER_MIN: z.coerce.number().int().positive().default(20),
  GATEWAY_KEY_REQUESTS_PER_MIN: z.coerce.number().int().min(0).default(6000),
  GATEWAY_KEY_REQUESTS_PER_S: z.coerce.number().int().min(0).default(100),
  // The reverse proxies in front (docs/operations-proxy.md), comma-separated addresses or CIDR
  // blocks: only a connection from one of them has its X-Forwarded-For believed as the client's
  // address (src/http/client-address.ts). Unset: no proxy, every peer is the client.
  GATEWAY_TRUSTED_PROXIES: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .superRefine((entries, check) => {
      for (const entry of entries) {
        const parsed = parseProxyEntry(entry);
        if (typeof parsed === 'string') check.addIssue({ code: 'custom', message: parsed });
      }
    }),
  // /metrics and /healthz's details (docs/operations-proxy.md): besides callers on this machine,
  // anyone presenting `Authorization: Bearer <this>`. Unset: this machine only.
  GATEWAY_METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  // The cost budget of each account (http/cost-budget.ts), on each server: costly requests (a
  // body over GATEWAY_COSTLY_BODY_KB, a page over 100 rows, an export, a pattern search, a save
  // that re-classifies held rows) in flight at once per account and for the server, and the
  // share of the server's time an account's costly work may take over time, after a first
  // GATEWAY_COSTLY_BURST_MS spent at once. Past them: 429 (the account) or 503, with Retry-After.
  GATEWAY_COSTLY_PER_ACCOUNT: z.coerce.number().int().positive().default(2),
  GATEWAY_COSTLY_MAX: z.coerce.number().int().positive().default(6),
  GATEWAY_COSTLY_SHARE_PCT: z.coerce.number().positive().max(100).default(5),
  GATEWAY_COSTLY_BURST_MS: z.coerce.number().int().min(0).default(1000),
  GATEWAY_COSTLY_BODY_KB: z.coerce.number().int().positive().default(256),
  // Slow clients: a whole request, its headers, an idle kept-alive socket; open connections.
  GATEWAY_REQUEST_TIMEOUT_S: z.coerce.number().int().positive().default(120),
  GATEWAY_HEADERS_TIMEOUT_S: z.coerce.number().int().positive().default(10),
  GATEWAY_KEEPALIVE_TIMEOUT_S: z.coerce.number().int().positive().default(5),
  GATEWAY_MAX_CONNECTIONS: z.coerce.number().int().positive().default(1000),
  // Open connections of one client address (from a trusted proxy: requests in progress of one
  // forwarded address), so that one address cannot hold the server's connections.
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().positive().default(50),
  // How long a body may keep the server waiting for it, plus a second per kilobyte received:
  // a body sent a byte at a time is cut well before GATEWAY_REQUEST_TIMEOUT_S.
  GATEWAY_BODY_TIMEOUT_S: z.coerce.number().int().positive().default(10),
  // Dashboard sign-in (docs/dashboard.md): a session ends after this many idle minutes; failed
  // sign-ins per e-mail address in 15 minutes; scrypt's cost N for new password hashes (the
  // OWASP value, ~1 s on 2 cores; lower only in tests: existing hashes keep their own N).
  GATEWAY_SESSION_IDLE_MIN: z.coerce.number().int().positive().default(60),
  GATEWAY_LOGIN_FAILURES_PER_EMAIL: z.coerce.number().int().positive().default(10),
  GATEWAY_SCRYPT_N: z.coerce
    .number()
    .int()
    .min(1024)
    .refine((n) => (n & (n - 1)) === 0, 'must be a power of 2')
    .default(2 ** 17),
  // People (docs/accounts-and-people.md). Sign-up of a new workshop: `open` or `closed`; unset,
  // open in the sandbox (no GATEWAY_REGISTRY_URL) and closed otherwise (signupOpen). Sign-up
  // attempts per client address and hour.
  GATEWAY_SIGNUP: z.enum(['closed', 'open']).optional(),
  GATEWAY_SIGNUP_PER_HOUR: z.coerce.number().int().positive().default(5),
  // Requests for a password-reset e-mail per client address and hour (and as many per e-mail address).
  GATEWAY_RESET_PER_HOUR: z.coerce.number().int().positive().default(5),
  // The SMTP server that e-mails invitations and reset links: smtp://user:pass@host:587 (STARTTLS,
  // required: add ?requireTLS=false only for a server on this machine) or smtps://…:465 (TLS).
  // Unset: no e-mail; links are shown once to the administrator to pass on.
  GATEWAY_SMTP_URL: z
    .string()
    .url()
    .refine((v) => /^smtps?:\/\//i.test(v), 'must be an smtp:// or smtps:// address')
    .optional(),
  // The sender of those e-mails, e.g. "Gateway prezentări <gateway@service.ro>".
  GATEWAY_MAIL_FROM: z.string().min(3).optional(),
  // A PEM file of the CA that signed the SMTP server's certificate, when it is not a public one.
  GATEWAY_SMTP_CA_FILE: z.string().min(1).optional(),
  GATEWAY_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // Worker and registry client (docs/worker.md explains each).
  GATEWAY_REGISTRY_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  GATEWAY_REGISTRY_USER_AGENT: z.string().min(1).default('service-gateway/0.1.0 (+contact: the operator of this gateway)'),
  // JSON overriding paths and field names of worker/registry/protocol.ts for a registry that differs.
  GATEWAY_REGISTRY_PROTOCOL: z.string().optional(),
  GATEWAY_WORKER_ID: z.string().min(1).max(100).optional(),
  GATEWAY_WORKER_CONCURRENCY: z.coerce.number().int().positive().default(4),
  GATEWAY_WORKER_MAX_INFLIGHT: z.coerce.number().int().positive().default(128),
  GATEWAY_WORKER_HEARTBEAT_S: z.coerce.number().int().positive().default(5),
  GATEWAY_WORKER_MAX_ATTEMPTS: z.coerce.number().int().positive().default(8),
  GATEWAY_WORKER_BACKOFF_S: z.coerce.number().positive().default(10),
  GATEWAY_WORKER_CREDS_RETRY_S: z.coerce.number().positive().default(300),
  GATEWAY_WORKER_SHUTDOWN_S: z.coerce.number().positive().default(10),
});
export type Config = z.infer<typeof Config>;

/** Settings that contradict each other, each with the variable to change. */
function contradictions(config: Config): string[] {
  const found: string[] = [];
  if (config.GATEWAY_HEADERS_TIMEOUT_S > config.GATEWAY_REQUEST_TIMEOUT_S) {
    found.push('  GATEWAY_HEADERS_TIMEOUT_S: nu poate depăși GATEWAY_REQUEST_TIMEOUT_S');
  }
  if (config.GATEWAY_SHUTDOWN_S < config.GATEWAY_WORKER_SHUTDOWN_S + 10) {
    found.push('  GATEWAY_SHUTDOWN_S: trebuie să fie cel puțin GATEWAY_WORKER_SHUTDOWN_S + 10 (oprirea așteaptă workerul, apoi baza de date)');
  }
  if (config.GATEWAY_IMPORT_STALE_S < 2 * config.GATEWAY_IMPORT_HEARTBEAT_S) {
    found.push('  GATEWAY_IMPORT_STALE_S: trebuie să fie cel puțin de două ori GATEWAY_IMPORT_HEARTBEAT_S (altfel un import în lucru ar fi preluat de alt proces)');
  }
  if (config.GATEWAY_SMTP_URL && !config.GATEWAY_MAIL_FROM) found.push('  GATEWAY_MAIL_FROM: este necesar când GATEWAY_SMTP_URL este setat (expeditorul e-mailurilor)');
  if (config.GATEWAY_SMTP_URL && !config.GATEWAY_PUBLIC_URL) {
    found.push('  GATEWAY_PUBLIC_URL: este necesar când GATEWAY_SMTP_URL este setat (adresa din linkurile trimise pe e-mail)');
  }
  return found;
}

export class ConfigError extends Error {}

/** Settings of earlier releases that are refused rather than ignored, each with what replaces it. */
const REPLACED: Record<string, string> = {
  GATEWAY_TRUST_PROXY: 'înlocuit de GATEWAY_TRUSTED_PROXIES (adresele proxy-urilor din față, de exemplu 127.0.0.1); cookie-urile sunt Secure după GATEWAY_PUBLIC_URL (https://...)',
};

export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty value is a mistake (`PORT=` would listen on a random port), not "unset": refuse it.
  const empty = Object.keys(Config.shape).filter((name) => env[name] !== undefined && env[name]!.trim() === '');
  const result = Config.safeParse(env);
  const replaced = Object.keys(REPLACED).some((name) => env[name] !== undefined);
  if (empty.length || replaced || !result.success) {
    const lines = [
      ...Object.keys(REPLACED)
        .filter((name) => env[name] !== undefined)
        .map((name) => `  ${name}: ${REPLACED[name]}`),
      ...empty.map((name) => `  ${name}: este setat gol; dați o valoare sau scoateți-l din mediu`),
      ...(result.success ? [] : result.error.issues.filter((i) => !empty.includes(String(i.path[0]))).map((i) => `  ${i.path.join('.')}: ${i.message}`)),
    ];
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const found = contradictions(result.data);
  if (found.length > 0) throw new ConfigError(`Invalid configuration:\n${found.join('\n')}`);
  return result.data;
}

/** `sandbox` when the built-in simulated registry is used, `productie` otherwise. */
export function environmentName(config: Pick<Config, 'GATEWAY_REGISTRY_URL'>): 'sandbox' | 'productie' {
  return config.GATEWAY_REGISTRY_URL ? 'productie' : 'sandbox';
}

/** Whether clients reach the gateway over HTTPS (GATEWAY_PUBLIC_URL says so): cookies are Secure, HSTS is sent. */
export function servedOverHttps(config: Pick<Config, 'GATEWAY_PUBLIC_URL'>): boolean {
  return config.GATEWAY_PUBLIC_URL?.toLowerCase().startsWith('https://') ?? false;
}

/** Whether a new workshop may sign up: GATEWAY_SIGNUP, or by default only in the sandbox. */
export function signupOpen(config: Pick<Config, 'GATEWAY_SIGNUP' | 'GATEWAY_REGISTRY_URL'>): boolean {
  return (config.GATEWAY_SIGNUP ?? (environmentName(config) === 'sandbox' ? 'open' : 'closed')) === 'open';
}

/** The address the integration examples show: GATEWAY_PUBLIC_URL without a trailing slash, or this host's loopback and port. */
export function publicBaseUrl(config: Pick<Config, 'GATEWAY_PUBLIC_URL' | 'PORT'>): string {
  return config.GATEWAY_PUBLIC_URL?.replace(/\/+$/, '') ?? `http://127.0.0.1:${config.PORT}`;
}

/** The largest JSON body taken: GATEWAY_MAX_JSON_BYTES, or the longest a submission with the largest photo needs. */
export function jsonBodyLimit(config: Pick<Config, 'GATEWAY_MAX_JSON_BYTES' | 'GATEWAY_MAX_IMAGE_BYTES'>): number {
  return config.GATEWAY_MAX_JSON_BYTES ?? maxSubmissionJsonBytes(config.GATEWAY_MAX_IMAGE_BYTES);
}

/**
 * What each setting does, as docs/settings.md shows it (generated by `npm run docs:settings`;
 * tests/unit/settings-doc.test.ts fails when that page is stale). Keyed by the schema above, so
 * a setting added without its line here does not compile. `shown` replaces a default that is
 * computed or generated rather than written in the schema.
 */
export const SETTING_DOCS: Record<keyof Config, { group: SettingGroup; doc: string; shown?: string }> = {
  PORT: { group: 'server', doc: 'HTTP port of the server. `0` takes a free port; the address actually bound is printed at start.' },
  HOST: {
    group: 'server',
    doc: 'Address the server binds. Loopback by default because the API carries registry credentials: nothing outside the machine reaches it until you say so. In a container (or behind a proxy on another host) set `HOST=0.0.0.0`.',
  },
  GATEWAY_PUBLIC_URL: {
    group: 'server',
    shown: '`http://127.0.0.1:$PORT`',
    doc: "The address clients reach the gateway at (behind a proxy, a LAN name, `https://…`): the Integrare page's examples, the Postman collection and the OpenAPI document's `servers` carry it. A trailing `/` is dropped.",
  },
  GATEWAY_DATA_DIR: {
    group: 'server',
    doc: 'Embedded database, generated master key, journal files. As root, any directory works, `/root/...` included (docs/operations.md, Install).',
  },
  GATEWAY_REQUIRE_API_KEY: { group: 'server', doc: '`false` is development mode: a request without a key acts for account 1. An invalid key is a 401 either way.' },
  GATEWAY_SECRET_KEY: {
    group: 'server',
    shown: 'generated',
    doc: 'Base64 of 32 bytes: master key for encryption at rest (AES-256-GCM). Generated into the data dir with the embedded database; **required** with `DATABASE_URL`.',
  },
  GATEWAY_OLD_SECRET_KEYS: {
    group: 'server',
    shown: 'none',
    doc: 'Comma-separated earlier master keys, kept to decrypt what they encrypted (key rotation: every ciphertext names its key id).',
  },
  GATEWAY_BACKUP_PASSPHRASE: {
    group: 'server',
    shown: 'none',
    doc: 'The passphrase `npm run backup` encrypts archives under and `npm run restore` decrypts them with (docs/operations-backup.md); never a command-line argument, which other users of the machine can read.',
  },
  GATEWAY_BACKUP_PASSPHRASE_FILE: { group: 'server', shown: 'none', doc: 'A file holding that passphrase (it wins over `GATEWAY_BACKUP_PASSPHRASE`).' },
  GATEWAY_REGISTRY_URL: { group: 'worker', doc: 'The registry. Unset: the simulated registry, `mediu` = `sandbox`; set: `mediu` = `productie`.' },
  GATEWAY_LOG_LEVEL: { group: 'server', doc: 'Console verbosity (`debug`, `info`, `warn`, `error`).' },
  GATEWAY_SHUTDOWN_S: {
    group: 'server',
    doc: 'SIGTERM / Ctrl-C: the whole stop takes at most this. A stager hands the file it is staging back to the queue, without its rows (a stager stages it again, from the start), the worker is given `GATEWAY_WORKER_SHUTDOWN_S`; whatever is still open near the end (a request whose body is still arriving) is cut, and the embedded database is stopped all the same. At least `GATEWAY_WORKER_SHUTDOWN_S` + 10.',
  },
  DATABASE_URL: {
    group: 'database',
    doc: 'PostgreSQL to use. Unset: the embedded one in `GATEWAY_DATA_DIR/pg` (as root with a data dir the `postgres` OS user cannot reach: in `/var/lib/gateway`, where `GATEWAY_DATA_DIR/pg-location` says). Its `sslmode` is read as libpq reads it (`verify-full` for a managed database: docs/operations.md, TLS); it must reach PostgreSQL directly or through a pooler in session mode (a pooler in transaction mode is refused at start).',
  },
  GATEWAY_DB_CA_FILE: {
    group: 'database',
    doc: "PEM file of the CA that signed the database's certificate, read at start (unreadable, or without a certificate: the start stops naming it). Needs `sslmode=verify-full` (or `verify-ca`, `require`) in `DATABASE_URL`. Unset: the system's CAs.",
  },
  GATEWAY_DB_STATEMENT_TIMEOUT_S: {
    group: 'database',
    doc: "Every connection of the server, the worker and the stagers asks PostgreSQL to cancel a statement running longer (`statement_timeout`); `0`: the database's or role's own setting. Migrations run without it.",
  },
  GATEWAY_DB_IDLE_TX_TIMEOUT_S: { group: 'database', doc: "A transaction left idle longer ends its session (`idle_in_transaction_session_timeout`); `0`: the database's own." },
  GATEWAY_DB_POOL: {
    group: 'database',
    doc: "Connections of the server's database pool (a stager has a pool of its own, of 4). Every request takes one per query.",
  },
  GATEWAY_WORKER_DB_POOL: {
    group: 'database',
    shown: '`GATEWAY_WORKER_MAX_INFLIGHT` + 4, at most 20',
    doc: "Connections of the worker's database pool (at least 3); LISTEN takes one more of its own.",
  },
  GATEWAY_MAX_BODY_BYTES: { group: 'limits', doc: 'Largest uploaded file (multipart) or other non-JSON body (413 above).' },
  GATEWAY_MAX_JSON_BYTES: { group: 'limits', doc: 'Largest JSON body (413 above): a submission with the largest photo allowed, in base64.' },
  GATEWAY_MAX_IMAGE_BYTES: { group: 'limits', doc: 'Largest `b64Image`, decoded (413 `IMAGINE_PREA_MARE` above); 10 MiB holds any phone photo.' },
  GATEWAY_AUTH_FAILURES_PER_MIN: {
    group: 'limits',
    doc: 'Failed authentications (missing or invalid key) one client address may make per minute; past it: 429 with `Retry-After`. Unreadable bodies and dashboard sign-ins per address count against the same number, each in a window of its own.',
  },
  GATEWAY_KEY_REQUESTS_PER_MIN: { group: 'limits', doc: 'Requests one API key may make per minute (429 with `Retry-After` past it); `0` turns the limit off.' },
  GATEWAY_KEY_REQUESTS_PER_S: {
    group: 'limits',
    doc: "Requests one API key may make per second on one server (429 with `Retry-After: 1` past it): the minute's allowance is not spent in a few seconds while other accounts wait behind it on the server's one event loop; `0` turns the limit off.",
  },
  GATEWAY_TRUSTED_PROXIES: {
    group: 'limits',
    shown: 'none',
    doc: "The reverse proxies in front, comma-separated addresses or CIDR blocks: only a connection from one of them has its `X-Forwarded-For` believed as the client's address (docs/operations-proxy.md). Unset: every peer is the client.",
  },
  GATEWAY_METRICS_TOKEN: {
    group: 'server',
    shown: 'none',
    doc: '`/metrics` and the details of `/healthz` answer callers on this machine, and anyone presenting `Authorization: Bearer <this>` (at least 16 characters). Unset: this machine only.',
  },
  GATEWAY_REQUEST_TIMEOUT_S: {
    group: 'limits',
    doc: 'A whole request (headers and body) must arrive within this time, else 408 and the connection is closed; 120 s carries the largest body over a slow line.',
  },
  GATEWAY_HEADERS_TIMEOUT_S: { group: 'limits', doc: "The request's headers must arrive within this time (at most `GATEWAY_REQUEST_TIMEOUT_S`)." },
  GATEWAY_KEEPALIVE_TIMEOUT_S: { group: 'limits', doc: 'An idle kept-alive connection is closed after this time.' },
  GATEWAY_MAX_CONNECTIONS: {
    group: 'limits',
    doc: 'Open connections at once; more are closed as they arrive. Connections refused for their address (below) are held apart, as many at most.',
  },
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: {
    group: 'limits',
    doc: "Open connections of one client address; more get `429 PREA_MULTE_CONEXIUNI` with `Retry-After` at once, are not read, and are closed after it. Behind a proxy of `GATEWAY_TRUSTED_PROXIES` it counts each forwarded address's requests in progress instead.",
  },
  GATEWAY_BODY_TIMEOUT_S: {
    group: 'limits',
    doc: 'How long a request body may keep the server waiting, plus a second per KiB received; past it: `408 CORP_PREA_LENT` and the connection is closed (a body sent a byte at a time ends within seconds, a large upload on a slow line goes on).',
  },
  GATEWAY_COSTLY_PER_ACCOUNT: {
    group: 'limits',
    doc: 'Costly requests of one account in flight at once on a server (bodies over `GATEWAY_COSTLY_BODY_KB`, list pages over 100 rows, exports, pattern searches, saves that re-classify held rows, bulk actions); past it: `429 CONT_PREA_MULTE_OPERATII` with `Retry-After`, for that account only.',
  },
  GATEWAY_COSTLY_MAX: { group: 'limits', doc: 'Costly requests of all accounts in flight at once on a server; past it: `503 SERVER_OCUPAT_OPERATII` with `Retry-After`.' },
  GATEWAY_COSTLY_SHARE_PCT: {
    group: 'limits',
    doc: "After its burst, the share of a server's time an account's costly work (uploads included) may use (refilled continuously); an export past it goes on at that pace.",
  },
  GATEWAY_COSTLY_BURST_MS: { group: 'limits', doc: 'The costly work an account may do at once before its share applies.' },
  GATEWAY_COSTLY_BODY_KB: { group: 'limits', doc: 'A request body declared larger than this (or of undeclared length) is costly work.' },
  GATEWAY_SESSION_IDLE_MIN: { group: 'dashboard', doc: "A dashboard session ends after this many minutes without a request (the worker's daily purge removes it from the table)." },
  GATEWAY_LOGIN_FAILURES_PER_EMAIL: {
    group: 'dashboard',
    doc: "Failed dashboard sign-ins for one e-mail address in 15 minutes from browsers without its device cookie; past it: 429 for them, whatever the address. A browser with the address's device cookie counts its own failures against the same limit instead (the per-address limit is `GATEWAY_AUTH_FAILURES_PER_MIN`).",
  },
  GATEWAY_SCRYPT_N: {
    group: 'dashboard',
    doc: "scrypt's cost N for new password hashes (OWASP's 2^17, r = 8, p = 1): about 0.5 s and 128 MiB per hash here. Lower it only for tests; a hash keeps its own N, so raising it later leaves passwords valid.",
  },
  GATEWAY_SIGNUP: {
    group: 'dashboard',
    shown: '`open` in the sandbox, `closed` otherwise',
    doc: 'Whether a new workshop may sign up from the sign-in page (`open`, `closed`): docs/accounts-and-people.md.',
  },
  GATEWAY_SIGNUP_PER_HOUR: { group: 'dashboard', doc: 'Sign-up attempts one client address may make per hour.' },
  GATEWAY_RESET_PER_HOUR: { group: 'dashboard', doc: 'Requests for a password-reset e-mail per client address and hour, and as many per e-mail address.' },
  GATEWAY_SMTP_URL: {
    group: 'dashboard',
    shown: 'none',
    doc: 'The SMTP server that e-mails invitations and reset links: `smtp://user:pass@host:587` (STARTTLS, required) or `smtps://…:465` (TLS). Unset: no e-mail; the administrator is shown each link once to pass on.',
  },
  GATEWAY_MAIL_FROM: { group: 'dashboard', shown: 'none', doc: 'The sender of those e-mails, e.g. `Gateway prezentări <gateway@service.ro>`; required with `GATEWAY_SMTP_URL`.' },
  GATEWAY_SMTP_CA_FILE: { group: 'dashboard', shown: 'none', doc: "A PEM file of the CA that signed the SMTP server's certificate, when it is not a public one." },
  GATEWAY_IMPORT_MAX_ROWS: { group: 'import', doc: 'Data rows one file may hold; past it 413 `IMPORT_PREA_MULTE_RANDURI`.' },
  GATEWAY_IMPORT_MAX_UNCOMPRESSED_BYTES: {
    group: 'import',
    doc: "The inflated size of an xlsx's parts together, checked from the zip's central directory before inflating; past it 413 `IMPORT_ARHIVA_PREA_MARE`.",
  },
  GATEWAY_IMPORT_FIRST_ROWS: {
    group: 'import',
    doc: 'Rows a stager stages and commits first, in a transaction of their own, so that the screen and the preview show them while the rest of the file is staged (docs/import.md, "Uploads are jobs").',
  },
  GATEWAY_IMPORT_UPLOADS_MAX: {
    group: 'import',
    doc: 'Files waiting in the queue or being staged, for the whole deployment (and the bodies one server reads at once). An upload past it is answered at once with 503 `SERVER_OCUPAT` and `Retry-After`, before its body is read. Each waits in PostgreSQL, encrypted, until a stager takes it.',
  },
  GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: {
    group: 'import',
    doc: "Of those, one account's (all its keys and dashboard users, on every server): past it 429 `IMPORT_PREA_MULTE_INCARCARI` with `Retry-After`, so one workshop cannot take every place.",
  },
  GATEWAY_STAGERS: {
    group: 'import',
    doc: 'Stager processes `npm start` runs beside the server (and restarts if one dies); `0`: none, the deployment runs its stagers with `npm run stager`, any number, on any machine that reaches the database.',
  },
  GATEWAY_STAGER_NICE: {
    group: 'import',
    doc: "A stager process's nice value (19, the lowest priority: the server and the worker on the same machine go first; `0` on a machine that only stages).",
  },
  GATEWAY_IMPORT_HEARTBEAT_S: { group: 'import', doc: "How often a stager renews its claim on the file it stages, and looks for other stagers' claims gone stale." },
  GATEWAY_IMPORT_STALE_S: {
    group: 'import',
    doc: 'A claim not renewed for this long (its stager died or lost the database) is taken up by any stager, which stages the file again from the start; after three such claims the batch is `failed`. At least twice `GATEWAY_IMPORT_HEARTBEAT_S`.',
  },
  GATEWAY_RUN_WORKER: { group: 'worker', doc: '`false`: `npm start` runs no worker (a deployment runs its workers with `npm run worker`).' },
  GATEWAY_SIM_USERS: { group: 'worker', doc: 'Logins the simulated registry accepts, `user:password,...`.' },
  GATEWAY_SIM_PORT: { group: 'worker', doc: 'Port of the simulated registry under `npm start` (a free port is taken if it is busy; the worker is told the address).' },
  GATEWAY_REGISTRY_TIMEOUT_MS: {
    group: 'worker',
    doc: 'A registry call without an answer in this time is a network failure (the record may have arrived: see reconciliation in docs/worker.md). Must stay below `GATEWAY_SENDING_STALE_S`.',
  },
  GATEWAY_REGISTRY_USER_AGENT: { group: 'worker', doc: "Sent on every registry call; the registry's firewall drops calls without one." },
  GATEWAY_REGISTRY_PROTOCOL: { group: 'worker', doc: 'JSON overriding paths and field names of the protocol (docs/worker.md, Protocol configuration).' },
  GATEWAY_WORKER_ID: { group: 'worker', shown: 'host-pid-random', doc: "The worker's id in `worker_state` and on its rows." },
  GATEWAY_WORKER_CONCURRENCY: { group: 'worker', doc: 'Registry calls in flight per account at once, from all workers together (one worker sends an account at a time).' },
  GATEWAY_WORKER_MAX_INFLIGHT: { group: 'worker', doc: 'Submissions one worker process holds at once (all accounts).' },
  GATEWAY_WORKER_HEARTBEAT_S: { group: 'worker', doc: 'Heartbeat of the worker and of its `sending` rows. At most half of the stale window.' },
  GATEWAY_SENDING_STALE_S: { group: 'worker', doc: 'A `sending` row whose heartbeat is older is recovered by any worker.' },
  GATEWAY_WORKER_MAX_ATTEMPTS: { group: 'worker', doc: 'Attempts (network failures, expired tokens) before the submission goes to `error`.' },
  GATEWAY_WORKER_BACKOFF_S: { group: 'worker', doc: 'First retry delay; doubles per attempt, capped at 15 min, ±20 % jitter.' },
  GATEWAY_WORKER_CREDS_RETRY_S: { group: 'worker', doc: 'First wait when no credentials exist; doubles, capped at 1 h. Saving credentials wakes the submissions at once.' },
  GATEWAY_WORKER_SHUTDOWN_S: {
    group: 'worker',
    doc: 'On SIGTERM, how long sends in flight may finish before they are aborted and released. Under `npm start`, the worker and each stager (which hands its file back to the queue) are killed if not stopped 5 s after it.',
  },
};

export const SETTING_GROUPS = {
  server: 'The server',
  database: 'The database',
  limits: 'Limits on requests and clients',
  dashboard: 'The dashboard',
  import: 'The import',
  worker: 'The worker and the registry',
} as const;
export type SettingGroup = keyof typeof SETTING_GROUPS;
