import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { alive } from '../helpers/worker';
import { startEmbedded } from '../../db/embedded';
import { clusterDir } from '../../db/embedded-placement';

// Issue 10: the embedded database recovers what an earlier run left, wherever its cluster is:
// in the data dir, or (as root, with a data dir the postgres OS user cannot reach) placed in
// the relocation dir. Real processes.

const ROOT = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
// The tests' own, not /var/lib/gateway.
const relocationDir = tempDir('gw-relocation-');
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const placements = [
  { where: 'in the data dir', dataDir: () => tempDir('gw-recovery-'), rootOnly: false },
  { where: 'placed for the postgres OS user (data dir in a 0700 dir)', dataDir: () => join(tempDir('gw-0700-'), 'data'), rootOnly: true },
];

const selectOne = async (url: string) => {
  const sql = postgres(url, { max: 1 });
  try {
    return (await sql`SELECT current_database() AS d`)[0]!.d as string;
  } finally {
    await sql.end();
  }
};

for (const placement of placements) {
  describe.skipIf(placement.rootOnly && process.getuid?.() !== 0)(`a cluster ${placement.where} recovers what an earlier run left`, () => {
    it('a stale postmaster.pid whose number belongs to another process is removed, and the start goes on', async () => {
      const dataDir = placement.dataDir();
      const first = await startEmbedded({ dataDir, relocationDir });
      await first.stop();
      const other = spawn('sleep', ['30']);
      try {
        writeFileSync(join(first.pgDir, 'postmaster.pid'), `${other.pid}\n${first.pgDir}\n0\n5999\n`);
        const db = await startEmbedded({ dataDir, relocationDir });
        expect(await selectOne(db.url)).toBe('gateway');
        await db.stop();
      } finally {
        other.kill();
      }
    }, 60_000);

    it('a PostgreSQL left running by a process killed outright is taken over, and stopped by its new owner', async () => {
      const dataDir = placement.dataDir();
      const options = JSON.stringify({ dataDir, relocationDir });
      const script = `import { startEmbedded } from ${JSON.stringify(join(ROOT, 'db', 'embedded.ts'))}; await startEmbedded(${options}); console.log('ready'); setInterval(() => {}, 1000);`;
      const starter = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        starter.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
        starter.once('exit', () => reject(new Error('the starter ended before its database was ready')));
      });
      const postmaster = Number(readFileSync(join(clusterDir(dataDir), 'postmaster.pid'), 'utf8').split('\n')[0]);
      starter.kill('SIGKILL');
      await new Promise((resolve) => starter.once('exit', resolve));
      expect(alive(postmaster)).toBe(true);

      const lines: string[] = [];
      const db = await startEmbedded({ dataDir, relocationDir, onLog: (line) => lines.push(line) });
      expect(lines.join('\n')).toMatch(/Took over the embedded PostgreSQL/);
      expect(await selectOne(db.url)).toBe('gateway');
      await db.stop();
      expect(alive(postmaster)).toBe(false);
    }, 60_000);

    it('a first start interrupted during initdb is initialised again at the next start', async () => {
      const dataDir = placement.dataDir();
      const first = await startEmbedded({ dataDir, relocationDir });
      await first.stop();
      // What initdb leaves when it is killed: credentials saved, a cluster dir not yet whole.
      rmSync(first.pgDir, { recursive: true });
      mkdirSync(first.pgDir);
      writeFileSync(join(first.pgDir, 'PG_VERSION'), '18\n');
      const db = await startEmbedded({ dataDir, relocationDir });
      expect(db.pgDir).toBe(first.pgDir);
      expect(await selectOne(db.url)).toBe('gateway');
      await db.stop();
      expect(existsSync(join(db.pgDir, 'gateway-initdb-done'))).toBe(true);
    }, 60_000);
  });
}
