import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { alive } from '../helpers/worker';
import { startEmbedded } from '../../db/embedded';
import { ensureCredentials } from '../../db/embedded-roles';

// Issue 10: the embedded database recovers what an earlier run left. Real processes.

const ROOT = join(import.meta.dirname, '..', '..');

describe('the embedded database recovers what an earlier run left', () => {
  it('a stale postmaster.pid whose number belongs to another process is removed, and the start goes on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-stale-'));
    await (await startEmbedded({ dataDir })).stop();
    const other = spawn('sleep', ['30']);
    try {
      writeFileSync(join(dataDir, 'pg', 'postmaster.pid'), `${other.pid}\n${join(dataDir, 'pg')}\n0\n5999\n`);
      const db = await startEmbedded({ dataDir });
      const sql = postgres(db.url, { max: 1 });
      expect((await sql`SELECT 1 AS ok`)[0]!.ok).toBe(1);
      await sql.end();
      await db.stop();
    } finally {
      other.kill();
    }
  }, 60_000);

  it('a PostgreSQL left running by a process killed outright is taken over, and stopped by its new owner', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-orphan-'));
    const script = `import { startEmbedded } from ${JSON.stringify(join(ROOT, 'db', 'embedded.ts'))}; await startEmbedded({ dataDir: ${JSON.stringify(dataDir)} }); console.log('ready'); setInterval(() => {}, 1000);`;
    const starter = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => starter.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve()));
    const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    starter.kill('SIGKILL');
    await new Promise((resolve) => starter.once('exit', resolve));
    expect(alive(postmaster)).toBe(true);

    const lines: string[] = [];
    const db = await startEmbedded({ dataDir, onLog: (line) => lines.push(line) });
    expect(lines.join('\n')).toMatch(/Took over the embedded PostgreSQL/);
    const sql = postgres(db.url, { max: 1 });
    expect((await sql`SELECT 1 AS ok`)[0]!.ok).toBe(1);
    await sql.end();
    await db.stop();
    expect(alive(postmaster)).toBe(false);
  }, 60_000);

  it('a first start interrupted during initdb is initialised again at the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-interrupted-'));
    ensureCredentials(dataDir, true);
    mkdirSync(join(dataDir, 'pg'));
    writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '18\n');
    const db = await startEmbedded({ dataDir });
    const sql = postgres(db.url, { max: 1 });
    expect((await sql`SELECT current_database() AS d`)[0]!.d).toBe('gateway');
    await sql.end();
    await db.stop();
    expect(existsSync(join(dataDir, 'pg', 'gateway-initdb-done'))).toBe(true);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});

describe('as root, a data dir the postgres OS user cannot reach', () => {
  it.skipIf(process.getuid?.() !== 0)('is refused in one Romanian line saying what to do, not with a stack trace', async () => {
    const hidden = mkdtempSync(join(tmpdir(), 'gw-0700-')); // mode 0700, owned by root
    const dataDir = join(hidden, 'data');
    await expect(startEmbedded({ dataDir })).rejects.toThrow(/Utilizatorul de sistem postgres nu poate ajunge la .*gw-0700-.*mutați clona/);
    expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(false);
    rmSync(hidden, { recursive: true, force: true });
  });
});
