import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservePort } from '../helpers/ports';
import { TEST_SECRET } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { waitFor } from '../helpers/worker';
import { missingPrograms } from '../helpers/programs';

// README's import flow, taken from README itself (so the two cannot drift) and run with bash
// against the built server, as a user following it literally would.

const ROOT = join(import.meta.dirname, '..', '..');
const db = useTestDatabase('all');
let dir: string;

beforeAll(async () => {
  expect(spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT }).status).toBe(0);
  dir = mkdtempSync(join(tmpdir(), 'gateway-readme-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The ```sh block of README that contains `marker`. */
function readmeBlock(marker: string): string {
  const blocks = [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes(marker));
  if (!block) throw new Error(`README has no sh block with ${marker}`);
  return block;
}

describe.skipIf(missingPrograms('the README examples', { curl: 'curl' }).length > 0)('README examples', () => {
  it('the import flow, run literally: captures its ids, keeps the suggested mapping, commits every row', async () => {
    const [port, simPort] = [await reservePort(), await reservePort()];
    const env = { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root', DATABASE_URL: db.url, GATEWAY_SECRET_KEY: TEST_SECRET };
    const server = spawn(process.execPath, ['dist/main.js'], {
      cwd: ROOT,
      env: { ...env, PORT: String(port), GATEWAY_SIM_PORT: String(simPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    server.stdout.on('data', (d: Buffer) => (out += d.toString()));
    server.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await waitFor(() => out.includes('Gateway listening') || undefined, 60_000, `the server:\n${out}`);
      const key = spawnSync(process.execPath, ['dist/keys.js', 'create', '--account', '1'], { cwd: ROOT, env, encoding: 'utf8' }).stdout.trim().split('\n').at(-1)!;
      expect(key).toMatch(/^gw_/);
      const script = readmeBlock('/v1/import').replace('BASE=http://127.0.0.1:3000', `BASE=http://127.0.0.1:${port}`);
      const run = spawnSync('bash', ['-e', '-c', `cd ${JSON.stringify(ROOT)}; ${script}`], { env: { ...env, KEY: key }, encoding: 'utf8', cwd: dir, timeout: 60_000 });
      expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
      rmSync(join(ROOT, 'netrimise.csv'), { force: true });
      const [batch] = await db.sql<
        { status: string; mapping: { mapping: Record<string, number> } }[]
      >`SELECT status, column_mapping AS mapping FROM import_batches ORDER BY id DESC LIMIT 1`;
      expect(batch!.status).toBe('committed');
      // The partial save kept the suggested columns: every required field is still mapped.
      expect(Object.keys(batch!.mapping.mapping)).toEqual(expect.arrayContaining(['vin', 'nrInm', 'dataPrestatie', 'odometruFinal']));
      const [count] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions`;
      expect(count!.n).toBeGreaterThan(0);
    } finally {
      server.kill('SIGKILL');
    }
  }, 90_000);
});
