import { z } from 'zod';

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
  // A JSON body: a submission with the largest photo allowed (base64 is 4/3 of the bytes).
  GATEWAY_MAX_JSON_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(14 * 1024 * 1024),
  // A submission's photo (b64Image), decoded; a larger one holds the submission as needs_data.
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
  // An upload stages this many rows before it answers; a file with more answers `staging` and
  // the rest is staged in the background, at most GATEWAY_IMPORT_BACKGROUND_MAX files at once
  // (each holds its file and its reader in memory; past it, or with 0, the upload stages the
  // whole file before it answers).
  GATEWAY_IMPORT_FIRST_ROWS: z.coerce.number().int().positive().default(1000),
  GATEWAY_IMPORT_BACKGROUND_MAX: z.coerce.number().int().min(0).default(2),
  // Uploads read or staged at once (foreground and background), for the process and for one
  // account: each holds its file, its reader and one database connection until its staging
  // ends. Past them an upload is refused at once (503, 429), before its body is read.
  GATEWAY_IMPORT_UPLOADS_MAX: z.coerce.number().int().positive().default(2),
  GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: z.coerce.number().int().positive().default(1),
  // Connections of the server's database pool.
  GATEWAY_DB_POOL: z.coerce.number().int().min(2).default(20),
  // The worker's pool; unset, GATEWAY_WORKER_MAX_INFLIGHT + 4, at most 20. Three at least: a
  // claim and a login each hold one for a moment, the tasks and sends share the rest (LISTEN
  // has one of its own).
  GATEWAY_WORKER_DB_POOL: z.coerce.number().int().min(3).optional(),
  // A managed PostgreSQL (README, Several servers): the PEM file of the CA that signed the
  // database's certificate, for DATABASE_URL's sslmode=verify-full (read at start).
  GATEWAY_DB_CA_FILE: z.string().min(1).optional(),
  // Asked of every connection at its start (0: the database's or role's own setting): a
  // statement running longer is cancelled; a transaction idle longer ends its session.
  GATEWAY_DB_STATEMENT_TIMEOUT_S: z.coerce.number().int().min(0).default(0),
  GATEWAY_DB_IDLE_TX_TIMEOUT_S: z.coerce.number().int().min(0).default(0),
  // SIGTERM or Ctrl-C: the whole stop (requests, stagings, worker, database) takes at most this.
  GATEWAY_SHUTDOWN_S: z.coerce.number().positive().default(30),
  // A background staging shares the rest of its file with a worker thread once it has staged
  // this many rows itself (0: never): on two cores, the rest of a large file stages about 1.5
  // times as fast; on one, set 0.
  GATEWAY_IMPORT_THREAD_AFTER: z.coerce.number().int().min(0).default(4096),
  // How often each server fails the batches left `staging` by a staging that lost its
  // database connection (a failover) or its process: failInterruptedStagings, beside the start.
  GATEWAY_IMPORT_SWEEP_S: z.coerce.number().int().positive().default(30),
  GATEWAY_RUN_WORKER: bool(true),
  // Abuse limits (README, Security): failed authentications per client address and minute,
  // requests per API key and minute (0: no limit), and whether X-Forwarded-For is believed.
  GATEWAY_AUTH_FAILURES_PER_MIN: z.coerce.number().int().positive().default(20),
  GATEWAY_KEY_REQUESTS_PER_MIN: z.coerce.number().int().min(0).default(6000),
  GATEWAY_TRUST_PROXY: bool(false),
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
  // Open connections of one client address (behind GATEWAY_TRUST_PROXY: requests in progress
  // of one forwarded address), so that one address cannot hold the server's connections.
  GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().positive().default(50),
  // How long a body may keep the server waiting for it, plus a second per kilobyte received:
  // a body sent a byte at a time is cut well before GATEWAY_REQUEST_TIMEOUT_S.
  GATEWAY_BODY_TIMEOUT_S: z.coerce.number().int().positive().default(10),
  // Dashboard sign-in (README, Dashboard): a session ends after this many idle minutes; failed
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
  if (config.GATEWAY_SMTP_URL && !config.GATEWAY_MAIL_FROM) found.push('  GATEWAY_MAIL_FROM: este necesar când GATEWAY_SMTP_URL este setat (expeditorul e-mailurilor)');
  if (config.GATEWAY_SMTP_URL && !config.GATEWAY_PUBLIC_URL) {
    found.push('  GATEWAY_PUBLIC_URL: este necesar când GATEWAY_SMTP_URL este setat (adresa din linkurile trimise pe e-mail)');
  }
  return found;
}

export class ConfigError extends Error {}

export function parseConfig(env: Record<string, string | undefined>): Config {
  // An empty value is a mistake (`PORT=` would listen on a random port), not "unset": refuse it.
  const empty = Object.keys(Config.shape).filter((name) => env[name] !== undefined && env[name]!.trim() === '');
  const result = Config.safeParse(env);
  if (empty.length || !result.success) {
    const lines = [
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

/** Whether a new workshop may sign up: GATEWAY_SIGNUP, or by default only in the sandbox. */
export function signupOpen(config: Pick<Config, 'GATEWAY_SIGNUP' | 'GATEWAY_REGISTRY_URL'>): boolean {
  return (config.GATEWAY_SIGNUP ?? (environmentName(config) === 'sandbox' ? 'open' : 'closed')) === 'open';
}

/** The address the integration examples show: GATEWAY_PUBLIC_URL without a trailing slash, or this host's loopback and port. */
export function publicBaseUrl(config: Pick<Config, 'GATEWAY_PUBLIC_URL' | 'PORT'>): string {
  return config.GATEWAY_PUBLIC_URL?.replace(/\/+$/, '') ?? `http://127.0.0.1:${config.PORT}`;
}
