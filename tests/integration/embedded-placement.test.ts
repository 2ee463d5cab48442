import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { alive } from '../helpers/worker';
import { startEmbedded } from '../../db/embedded';
import { packageNativeDir, postgresOsUser } from '../../db/embedded-placement';
import { credentialsPath } from '../../db/embedded-roles';

// Issue 10: as root, PostgreSQL runs as the postgres OS user, which cannot traverse a 0700
// directory (a clone under /root, any `mktemp -d`). What it cannot reach is placed where it
// can, with the choice logged; only where nothing can be placed is the start refused, in one
// Romanian line. Real processes, real PostgreSQL.

const dirs: string[] = [];
/** A fresh `mktemp -d`: mode 0700, owned by root. */
const hiddenDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
// The tests' own relocation dir, not /var/lib/gateway.
const relocationDir = hiddenDir('gw-relocation-');
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const postmasterOf = (pgDir: string) => Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

describe.skipIf(process.getuid?.() !== 0)('as root, what the postgres OS user cannot reach', () => {
  it('a data dir in a 0700 directory: the cluster is placed in the relocation dir, logged and recorded; a second start finds the same data; the credentials stay root’s', async () => {
    const dataDir = join(hiddenDir('gw-0700-'), 'data');
    const lines: string[] = [];
    const db = await startEmbedded({ dataDir, relocationDir, onLog: (line) => lines.push(line) });
    const postmaster = postmasterOf(db.pgDir);
    try {
      expect(db.pgDir).toMatch(new RegExp(`^${relocationDir}/data-[0-9a-f]{16}/pg$`));
      expect(lines.join('\n')).toContain(`The postgres OS user cannot reach ${dataDir}: its PostgreSQL cluster is placed in ${db.pgDir}`);
      expect(readFileSync(join(dataDir, 'pg-location'), 'utf8').trim()).toBe(db.pgDir);
      expect(existsSync(join(dataDir, 'pg'))).toBe(false);
      const runAs = postgresOsUser()!;
      expect(statSync(db.pgDir).uid).toBe(runAs.uid);
      expect(statSync(db.pgDir).mode & 0o777).toBe(0o700);
      expect(statSync(dirname(db.pgDir)).mode & 0o777).toBe(0o755);
      // initdb's password file went with its private directory.
      expect(readdirSync(dirname(db.pgDir))).toEqual(['pg']);
      const sql = postgres(db.url, { max: 1 });
      await sql`CREATE TABLE kept (v text)`;
      await sql`INSERT INTO kept VALUES ('păstrat')`;
      await sql.end();
    } finally {
      await db.stop();
    }
    expect(alive(postmaster)).toBe(false);

    const again = await startEmbedded({ dataDir, relocationDir });
    try {
      expect(again.pgDir).toBe(db.pgDir);
      const sql = postgres(again.url, { max: 1 });
      expect((await sql`SELECT v FROM kept`).map((r) => r.v)).toEqual(['păstrat']);
      await sql.end();
      // The server's user reads neither the credentials nor the record of the cluster's place.
      const runAs = postgresOsUser()!;
      for (const file of [credentialsPath(dataDir), join(dataDir, 'pg-location')]) {
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(spawnSync('cat', [file], runAs).status, file).not.toBe(0);
      }
    } finally {
      await again.stop();
    }
  }, 120_000);

  it('a new data dir where a deleted one was: the old cluster is kept aside, not used', async () => {
    const dataDir = join(hiddenDir('gw-0700-'), 'data');
    const first = await startEmbedded({ dataDir, relocationDir });
    const sql = postgres(first.url, { max: 1 });
    await sql`CREATE TABLE kept (v text)`;
    await sql.end();
    await first.stop();
    rmSync(dataDir, { recursive: true });

    const lines: string[] = [];
    const db = await startEmbedded({ dataDir, relocationDir, onLog: (line) => lines.push(line) });
    try {
      expect(db.pgDir).toBe(first.pgDir);
      const aside = /kept as (\S+) /.exec(lines.join('\n'))?.[1];
      expect(aside && existsSync(join(aside, 'PG_VERSION'))).toBe(true);
      const fresh = postgres(db.url, { max: 1 });
      expect(await fresh`SELECT to_regclass('kept') AS t`).toEqual([{ t: null }]);
      await fresh.end();
    } finally {
      await db.stop();
    }
  }, 120_000);

  it('a relative data dir (the default ./.data) in a clone below a 0700 directory is placed as well', async () => {
    // As /root/clone: the clone itself open (0755), a directory above it closed.
    const clone = join(hiddenDir('gw-0700-'), 'clone');
    mkdirSync(clone, { mode: 0o755 });
    const cwd = process.cwd();
    process.chdir(clone);
    try {
      const db = await startEmbedded({ dataDir: '.data', relocationDir });
      await db.stop();
      expect(db.pgDir).toMatch(new RegExp(`^${relocationDir}/data-[0-9a-f]{16}/pg$`));
      expect(readFileSync(join(clone, '.data', 'pg-location'), 'utf8').trim()).toBe(db.pgDir);
    } finally {
      process.chdir(cwd);
    }
  }, 120_000);

  it('binaries in a 0700 directory: copied once to the relocation dir, and the server runs from the copy', async () => {
    const packageDir = join(hiddenDir('gw-0700-pkg-'), 'package');
    cpSync(dirname(await packageNativeDir()), packageDir, { recursive: true, verbatimSymlinks: true });
    const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
    // Its own relocation dir: in a clone under /root, the other tests copy the binaries too.
    const ownRelocationDir = hiddenDir('gw-relocation-');
    const copy = join(ownRelocationDir, `postgres-${version}`);
    const dataDir = hiddenDir('gw-data-');
    const options = { dataDir, relocationDir: ownRelocationDir, nativeDir: join(packageDir, 'native') };

    const lines: string[] = [];
    const db = await startEmbedded({ ...options, onLog: (line) => lines.push(line) });
    try {
      expect(lines.join('\n')).toContain(`PostgreSQL binaries copied to ${copy}`);
      expect(realpathSync(`/proc/${postmasterOf(db.pgDir)}/exe`)).toBe(join(copy, 'bin', 'postgres'));
    } finally {
      await db.stop();
    }
    const copied = statSync(copy).ino;

    lines.length = 0;
    const again = await startEmbedded({ ...options, onLog: (line) => lines.push(line) });
    try {
      expect(lines.join('\n')).toContain(`PostgreSQL runs from its copy in ${copy}`);
      expect(statSync(copy).ino).toBe(copied);
      expect(readdirSync(ownRelocationDir).filter((name) => name.includes('.partial-'))).toEqual([]);
    } finally {
      await again.stop();
    }
  }, 120_000);

  it('a cluster already in a data dir put out of reach (moved) is refused in one Romanian line, not left behind', async () => {
    const dataDir = join(hiddenDir('gw-0700-'), 'data');
    mkdirSync(join(dataDir, 'pg'), { recursive: true });
    writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '18\n');
    await expect(startEmbedded({ dataDir, relocationDir })).rejects.toThrow(
      new RegExp(`^Utilizatorul de sistem postgres nu poate ajunge la ${dataDir}/pg .*iar acolo sunt deja datele: mutați clona [^\n]*DATABASE_URL\\.$`),
    );
    expect(existsSync(join(dataDir, 'pg-location'))).toBe(false);
  });

  it('where nothing can be placed either, the start is refused in one Romanian line saying what to do, before initdb', async () => {
    const dataDir = join(hiddenDir('gw-0700-'), 'data');
    const unusable = join(hiddenDir('gw-0700-shared-'), 'gateway');
    const start = startEmbedded({ dataDir, relocationDir: unusable });
    await expect(start).rejects.toThrow(new RegExp(`^Utilizatorul de sistem postgres nu poate ajunge la ${dataDir} .*nici la ${unusable}.*: mutați clona .*DATABASE_URL\\.$`));
    await expect(start).rejects.not.toThrow(/\n/);
    expect(existsSync(join(dataDir, 'pg-location'))).toBe(false);
  });
});
