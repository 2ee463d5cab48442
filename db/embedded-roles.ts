import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';

// Who may connect to the embedded PostgreSQL, and as what. A superuser (`admin`) only sets up;
// the product connects as `app`, which owns its database and nothing else: no superuser, so no
// `COPY ... TO PROGRAM`, no other database. Both passwords are random per data dir, kept in
// `<dataDir>/pg-credentials.json` (mode 0600, like the master key), checked by SCRAM.

export const APP_ROLE = 'gateway_app';
const NEW_ADMIN_ROLE = 'gateway_admin';
// Data dirs made by earlier builds: this superuser, with a password that was in the source.
const LEGACY_ADMIN = { user: 'gateway', password: 'gateway-local' };

export interface Role {
  user: string;
  password: string;
}
export interface Credentials {
  admin: Role;
  app: Role;
}

const secret = () => randomBytes(24).toString('base64url');
export const credentialsPath = (dataDir: string) => join(dataDir, 'pg-credentials.json');

export function readCredentials(dataDir: string): Credentials | null {
  const path = credentialsPath(dataDir);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Credentials) : null;
}

/**
 * The data dir's credentials, made (and saved before they are used anywhere, so an interrupted
 * start resumes with them) when missing: for a new data dir, a new superuser; for one of an
 * earlier build, its superuser `gateway` gets a new password at the next set-up.
 */
export function ensureCredentials(dataDir: string, fresh: boolean): Credentials {
  const existing = readCredentials(dataDir);
  if (existing) return existing;
  const credentials = { admin: { user: fresh ? NEW_ADMIN_ROLE : LEGACY_ADMIN.user, password: secret() }, app: { user: APP_ROLE, password: secret() } };
  writeFileSync(credentialsPath(dataDir), `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return credentials;
}

/** Password authentication by SCRAM for every connection, over the socket and loopback alike. */
export const HBA = [
  '# Written by the gateway at every start: SCRAM passwords only (see db/embedded-roles.ts).',
  'local all all scram-sha-256',
  'host all all 127.0.0.1/32 scram-sha-256',
  'host all all ::1/128 scram-sha-256',
  '',
].join('\n');

export function writeHba(pgDir: string): void {
  // Rewritten in place, so the file keeps the owner PostgreSQL runs as.
  writeFileSync(join(pgDir, 'pg_hba.conf'), HBA);
}

const url = (role: Role, port: number, database: string) => `postgres://${encodeURIComponent(role.user)}:${encodeURIComponent(role.password)}@127.0.0.1:${port}/${database}`;

export const roleUrl = url;

/** A superuser connection; a data dir of an earlier build still has the old password until set-up changes it. */
async function connectAdmin(credentials: Credentials, port: number, database: string) {
  const open = (role: Role) => postgres(url(role, port, database), { max: 1, onnotice: () => {}, connect_timeout: 10 });
  const admin = open(credentials.admin);
  try {
    await admin`SELECT 1`;
    return admin;
  } catch (error) {
    await admin.end();
    if (credentials.admin.user !== LEGACY_ADMIN.user || (error as { code?: string }).code !== '28P01') throw error;
    const legacy = open(LEGACY_ADMIN);
    await legacy.unsafe(`ALTER ROLE ${LEGACY_ADMIN.user} PASSWORD '${credentials.admin.password}'`);
    return legacy;
  }
}

/**
 * Brings the roles and the database to what they must be, whatever an earlier start (of this
 * build or an older one, finished or interrupted) left: every step is idempotent.
 */
export async function ensureRoles(credentials: Credentials, port: number, database: string): Promise<void> {
  const admin = await connectAdmin(credentials, port, 'postgres');
  try {
    await admin.unsafe(`SET password_encryption = 'scram-sha-256'`);
    const app = credentials.app;
    const [exists] = await admin`SELECT 1 FROM pg_roles WHERE rolname = ${app.user}`;
    const verb = exists ? 'ALTER' : 'CREATE';
    // Passwords are ours (base64url): safe to inline; DDL takes no parameters.
    await admin.unsafe(`${verb} ROLE ${app.user} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD '${app.password}'`);
    await admin.unsafe(`ALTER ROLE ${credentials.admin.user} PASSWORD '${credentials.admin.password}'`);
    const [db] = await admin`SELECT 1 FROM pg_database WHERE datname = ${database}`;
    if (!db) await admin.unsafe(`CREATE DATABASE ${database} OWNER ${app.user}`);
    else await admin.unsafe(`ALTER DATABASE ${database} OWNER TO ${app.user}`);
  } finally {
    await admin.end();
  }
  // Inside the database: the schema and everything an earlier build created as the superuser.
  const inDb = await connectAdmin(credentials, port, database);
  try {
    await inDb.unsafe(`REVOKE ALL ON DATABASE ${database} FROM PUBLIC`);
    await inDb.unsafe(`ALTER SCHEMA public OWNER TO ${credentials.app.user}`);
    await inDb.unsafe(transferOwnership(credentials.app.user));
  } finally {
    await inDb.end();
  }
}

/** Tables, views, free-standing sequences and functions of `public` not yet owned by `owner`. */
function transferOwnership(owner: string): string {
  return `DO $$ DECLARE r record; BEGIN
    FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND pg_get_userbyid(c.relowner) <> '${owner}'
        AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i')))
    LOOP
      EXECUTE format('ALTER %s %s OWNER TO ${owner}', CASE r.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END, r.name);
    END LOOP;
    FOR r IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> '${owner}'
    LOOP
      EXECUTE format('ALTER ROUTINE %s OWNER TO ${owner}', r.name);
    END LOOP;
  END $$`;
}
