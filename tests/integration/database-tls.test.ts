import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../db/client';
import { startEmbedded, type EmbeddedDb } from '../../db/embedded';
import { postgresOsUser } from '../../db/embedded-placement';
import { parseConfig } from '../../src/config';
import { openDatabase } from '../../src/database';
import { databaseConnection } from '../../src/database-connection';
import { TEST_SECRET } from '../helpers/app';
import { createTestDatabase } from '../helpers/db';

// A managed PostgreSQL is reached over TLS: sslmode=verify-full with the CA of
// GATEWAY_DB_CA_FILE must connect to the database whose certificate that CA signed, and refuse
// (with a message naming what to fix) a certificate another CA signed or one that does not
// name the host. A PostgreSQL of its own, with ssl=on and certificates made here.

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
let pg: EmbeddedDb;
let certs: string;
/** The app role's URL with `host` and `query` in place of the embedded loopback address. */
let urlFor: (host: string, query: string) => string;

const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: certs, stdio: ['ignore', 'ignore', 'pipe'] });
const ecKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
const makeCa = (name: string) => openssl('req', '-x509', ...ecKey, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`);

beforeAll(async () => {
  certs = tempDir('gw-tls-');
  makeCa('ca');
  makeCa('other-ca');
  // The server's certificate names localhost only: 127.0.0.1 is not one of its names.
  openssl('req', ...ecKey, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(certs, 'san.ext'), 'subjectAltName=DNS:localhost\n');
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', 'san.ext');

  pg = await startEmbedded({ dataDir: tempDir('gw-tls-pg-'), relocationDir: tempDir('gw-tls-relocation-') });
  const runAs = postgresOsUser();
  for (const file of ['server.crt', 'server.key']) {
    const target = join(pg.pgDir, file);
    copyFileSync(join(certs, file), target);
    chmodSync(target, 0o600);
    if (runAs) chownSync(target, runAs.uid, runAs.gid);
  }
  const admin = postgres(pg.adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin`ALTER SYSTEM SET ssl_cert_file = 'server.crt'`;
    await admin`ALTER SYSTEM SET ssl_key_file = 'server.key'`;
    await admin`ALTER SYSTEM SET ssl = on`;
    await admin`SELECT pg_reload_conf()`;
  } finally {
    await admin.end();
  }
  const base = new URL(pg.url);
  urlFor = (host, query) => {
    const url = new URL(base);
    url.hostname = host;
    url.search = query;
    return url.toString();
  };
}, 120_000);
afterAll(async () => {
  await pg?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const config = (url: string, env: Record<string, string> = {}) => parseConfig({ DATABASE_URL: url, GATEWAY_SECRET_KEY: TEST_SECRET, ...env });
const caFile = () => join(certs, 'ca.crt');

/** Whether this session is encrypted, asked over a pool built as the product builds its own. */
async function encrypted(url: string, env: Record<string, string> = {}): Promise<boolean> {
  const { sql, close } = createDb(url, { max: 1, connection: databaseConnection(config(url, env), url) });
  try {
    const [row] = await sql<{ ssl: boolean }[]>`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;
    return row!.ssl;
  } finally {
    await close();
  }
}

describe('sslmode=verify-full with GATEWAY_DB_CA_FILE', () => {
  it('connects, encrypted, to the database whose certificate the CA signed; the start-up applies the migrations over it', async () => {
    const url = urlFor('localhost', '?sslmode=verify-full');
    expect(await encrypted(url, { GATEWAY_DB_CA_FILE: caFile() })).toBe(true);
    const opened = await openDatabase(config(url, { GATEWAY_DB_CA_FILE: caFile() }), () => {});
    expect(opened.url).toBe(url);
    const { sql, close } = createDb(pg.url, { max: 1 });
    try {
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM gateway_migrations`;
      expect(row!.n).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });

  it('refuses a certificate another CA signed, saying which setting to fix', async () => {
    const url = urlFor('localhost', '?sslmode=verify-full');
    const refused = openDatabase(config(url, { GATEWAY_DB_CA_FILE: join(certs, 'other-ca.crt') }), () => {});
    await expect(refused).rejects.toThrow(/TLS certificate was refused .*GATEWAY_DB_CA_FILE must be the CA that signed it/);
  });

  it('refuses a certificate that does not name the host of DATABASE_URL', async () => {
    const url = urlFor('127.0.0.1', '?sslmode=verify-full');
    const refused = openDatabase(config(url, { GATEWAY_DB_CA_FILE: caFile() }), () => {});
    await expect(refused).rejects.toThrow(/ERR_TLS_CERT_ALTNAME_INVALID.*DATABASE_URL's host must be a name or address the certificate holds/);
  });

  it('without the CA file, checks against the system CAs, which do not know this one', async () => {
    await expect(openDatabase(config(urlFor('localhost', '?sslmode=verify-full')), () => {})).rejects.toThrow(/TLS certificate was refused/);
  });
});

describe('a database without TLS', () => {
  it('is refused when sslmode asks for TLS, with a message saying so', async () => {
    const plain = await createTestDatabase();
    try {
      const url = new URL(plain.url);
      url.search = '?sslmode=require';
      await expect(openDatabase(config(url.toString()), () => {})).rejects.toThrow(/does not offer TLS \(ssl=off\?\) while DATABASE_URL's sslmode asks for it/);
    } finally {
      await plain.drop();
    }
  });
});

describe('the other modes', () => {
  it('verify-ca checks the chain, not the name; require encrypts; require with a CA file is verify-ca, as in libpq', async () => {
    expect(await encrypted(urlFor('127.0.0.1', '?sslmode=verify-ca'), { GATEWAY_DB_CA_FILE: caFile() })).toBe(true);
    expect(await encrypted(urlFor('127.0.0.1', '?sslmode=require'))).toBe(true);
    expect(await encrypted(urlFor('127.0.0.1', '?sslmode=disable'))).toBe(false);
    const wrongCa = { GATEWAY_DB_CA_FILE: join(certs, 'other-ca.crt') };
    await expect(openDatabase(config(urlFor('127.0.0.1', '?sslmode=require'), wrongCa), () => {})).rejects.toThrow(/TLS certificate was refused/);
  });
});

describe('settings that cannot work stop the start with a message naming them', () => {
  it('a CA file that cannot be read, or holds no certificate', () => {
    const url = urlFor('localhost', '?sslmode=verify-full');
    expect(() => databaseConnection(config(url, { GATEWAY_DB_CA_FILE: join(certs, 'absent.crt') }), url)).toThrow(/GATEWAY_DB_CA_FILE: cannot read .*absent\.crt \(ENOENT\)/);
    expect(() => databaseConnection(config(url, { GATEWAY_DB_CA_FILE: join(certs, 'san.ext') }), url)).toThrow(/GATEWAY_DB_CA_FILE: .*holds no PEM certificate/);
  });

  it('a CA file with a mode that checks nothing, an unknown mode, a libpq file parameter', () => {
    const env = { GATEWAY_DB_CA_FILE: caFile() };
    for (const query of ['', '?sslmode=prefer', '?sslmode=disable']) {
      const url = urlFor('localhost', query);
      expect(() => databaseConnection(config(url, env), url)).toThrow(/GATEWAY_DB_CA_FILE: is set, but DATABASE_URL's sslmode .* checks no certificate: add \?sslmode=verify-full/);
    }
    const unknown = urlFor('localhost', '?sslmode=verify');
    expect(() => databaseConnection(config(unknown), unknown)).toThrow(/DATABASE_URL: sslmode=verify is not one of disable, allow/);
    const rootcert = urlFor('localhost', `?sslmode=verify-full&sslrootcert=${caFile()}`);
    expect(() => databaseConnection(config(rootcert), rootcert)).toThrow(/DATABASE_URL: sslrootcert is not read here: give the CA in GATEWAY_DB_CA_FILE/);
  });
});

describe('session timeouts', () => {
  it('every connection starts with the statement and idle-in-transaction timeouts asked for; a longer statement is cancelled', async () => {
    const url = urlFor('localhost', '?sslmode=verify-full');
    const env = { GATEWAY_DB_CA_FILE: caFile(), GATEWAY_DB_STATEMENT_TIMEOUT_S: '1', GATEWAY_DB_IDLE_TX_TIMEOUT_S: '30' };
    const { sql, close } = createDb(url, { max: 2, connection: databaseConnection(config(url, env), url) });
    try {
      const [row] = await sql<{ s: string; i: string }[]>`SELECT current_setting('statement_timeout') AS s, current_setting('idle_in_transaction_session_timeout') AS i`;
      expect(row).toEqual({ s: '1s', i: '30s' });
      await expect(sql`SELECT pg_sleep(3)`).rejects.toMatchObject({ code: '57014' });
    } finally {
      await close();
    }
    // Unset (0): nothing is asked, the database's own setting holds.
    const plain = createDb(url, { max: 1, connection: databaseConnection(config(url, { GATEWAY_DB_CA_FILE: caFile() }), url) });
    try {
      const [row] = await plain.sql<{ s: string }[]>`SELECT current_setting('statement_timeout') AS s`;
      expect(row!.s).toBe('0');
    } finally {
      await plain.close();
    }
  });
});
