import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { startEmbedded } from '../../db/embedded';
import { reservePort } from '../helpers/ports';
import { packageNativeDir, placeBinaries, postgresOsUser } from '../../db/embedded-placement';
import { credentialsPath } from '../../db/embedded-roles';
import { initCluster, startServer } from '../../db/embedded-server';

// Issue 9: the embedded PostgreSQL accepts no password from the source, listens on loopback
// only, checks passwords by SCRAM, and the product connects as a role that is no superuser.

/** Files in the shared temp dir that hold `password` (initdb's password file would). */
const filesHolding = (password: string) =>
  readdirSync(tmpdir())
    .filter((f) => f.startsWith('pg-password-'))
    .filter((f) => {
      try {
        return readFileSync(join(tmpdir(), f), 'utf8').includes(password);
      } catch {
        return false;
      }
    });
const connect = (url: string) => postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
const withPassword = (url: string, user: string, password: string) => url.replace(/\/\/[^@]+@/, `//${user}:${password}@`);

async function refused(url: string): Promise<string | undefined> {
  const sql = connect(url);
  try {
    await sql`SELECT 1`;
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  } finally {
    await sql.end();
  }
}

describe('the embedded database of a new data dir', () => {
  it('random passwords in a 0600 file, SCRAM, loopback only, an app role that owns its database but is no superuser', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-embedded-'));
    const db = await startEmbedded({ dataDir });
    try {
      // initdb's password file was written in a private directory, and is gone.
      expect(filesHolding(JSON.parse(readFileSync(credentialsPath(dataDir), 'utf8')).admin.password)).toEqual([]);
      expect(statSync(credentialsPath(dataDir)).mode & 0o777).toBe(0o600);
      const app = connect(db.url);
      try {
        const [role] = await app`SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user`;
        expect(role).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false });
        await app`CREATE TABLE owned_here (id int)`;
        await expect(app.unsafe(`COPY (SELECT 1) TO PROGRAM 'id'`)).rejects.toMatchObject({ code: '42501' });
        await expect(app.unsafe(`CREATE DATABASE other`)).rejects.toMatchObject({ code: '42501' });
      } finally {
        await app.end();
      }
      const admin = connect(db.adminUrl);
      try {
        expect((await admin`SHOW listen_addresses`)[0]!.listen_addresses).toBe('127.0.0.1');
        expect((await admin`SHOW password_encryption`)[0]!.password_encryption).toBe('scram-sha-256');
        const hba = await admin`SELECT type, auth_method FROM pg_hba_file_rules`;
        expect(hba.every((r) => r.auth_method === 'scram-sha-256')).toBe(true);
      } finally {
        await admin.end();
      }
      const hbaText = readFileSync(join(dataDir, 'pg', 'pg_hba.conf'), 'utf8');
      expect(hbaText).not.toMatch(/\btrust\b|\bpassword\b/);
      expect(await refused(withPassword(db.url, 'gateway', 'gateway-local'))).toBe('28P01');
    } finally {
      await db.stop();
    }
  }, 120_000);
});

describe('a data dir of an earlier build is upgraded in place', () => {
  it('the old superuser password stops working; the app role owns the existing tables and keeps their rows', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-embedded-legacy-'));
    // What earlier builds made: superuser gateway/gateway-local, password auth, tables owned by it.
    chmodSync(dataDir, 0o755);
    const port = await reservePort();
    const runAs = postgresOsUser();
    // As root in a clone the postgres OS user cannot reach, the binaries run from a copy (here, the test's own).
    const binDir = placeBinaries(await packageNativeDir(), runAs, join(dataDir, 'binaries'), () => {});
    const cluster = { binDir, pgDir: join(dataDir, 'pg'), runAs };
    await initCluster({ ...cluster, admin: { user: 'gateway', password: 'gateway-local' }, auth: 'password' });
    const legacy = await startServer({ ...cluster, port, flags: [] });
    const setup = connect(`postgres://gateway:gateway-local@127.0.0.1:${port}/postgres`);
    await setup`CREATE DATABASE gateway`;
    await setup.end();
    const old = connect(`postgres://gateway:gateway-local@127.0.0.1:${port}/gateway`);
    await old`CREATE TABLE kept (id serial PRIMARY KEY, v text)`;
    await old`INSERT INTO kept (v) VALUES ('date vechi')`;
    await old.end();
    await legacy.stop();

    const db = await startEmbedded({ dataDir });
    try {
      const app = connect(db.url);
      try {
        expect((await app`SELECT v FROM kept`).map((r) => r.v)).toEqual(['date vechi']);
        await app`INSERT INTO kept (v) VALUES ('nou')`;
        await app`ALTER TABLE kept ADD COLUMN extra int`;
        expect((await app`SELECT rolsuper FROM pg_roles WHERE rolname = current_user`)[0]!.rolsuper).toBe(false);
      } finally {
        await app.end();
      }
      expect(await refused(withPassword(db.url, 'gateway', 'gateway-local'))).toBe('28P01');
    } finally {
      await db.stop();
    }
    // A second start finds everything in place.
    const again = await startEmbedded({ dataDir });
    try {
      const app = connect(again.url);
      expect((await app`SELECT count(*)::int AS n FROM kept`)[0]!.n).toBe(2);
      await app.end();
    } finally {
      await again.stop();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);
});
