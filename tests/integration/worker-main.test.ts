import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reservePort } from '../helpers/ports';
import { TEST_SECRET } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { alive, waitFor } from '../helpers/worker';

// `npm start` as a user runs it: the server, the simulated registry in-process (no
// GATEWAY_REGISTRY_URL: sandbox) and the worker as a child process.

const ROOT = join(import.meta.dirname, '..', '..');
const db = useTestDatabase('all');

describe('npm start', () => {
  it('runs server, simulated registry and worker: a posted submission reaches sent; SIGTERM stops them all with exit 0', async () => {
    const [port, simPort] = [await reservePort(), await reservePort()];
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-start-'));
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        GATEWAY_SIM_PORT: String(simPort),
        DATABASE_URL: db.url,
        GATEWAY_SECRET_KEY: TEST_SECRET,
        GATEWAY_DATA_DIR: dataDir,
        GATEWAY_REQUIRE_API_KEY: 'false',
        GATEWAY_WORKER_SHUTDOWN_S: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitFor(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok || undefined, 30_000, `the server to listen:\n${out}`);
      const ping = (await (await fetch(`${base}/v1/ping`)).json()) as { mediu: string };
      expect(ping.mediu).toBe('sandbox');

      const res = await fetch(`${base}/v1/prezentari`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          vin: 'WDB1234561A654321',
          nrInm: 'B123ABC',
          dataPrestatie: '2025-03-14',
          odometruFinal: 154200,
          prestatii: [{ cod_prestatie: 'OE-3' }],
          reg_credentials: { username: 'demo', password: 'demo' },
        }),
      });
      const { submission_id: id } = (await res.json()) as { submission_id: number };
      const view = await waitFor(
        async () => {
          const body = (await (await fetch(`${base}/v1/prezentari/${id}`)).json()) as { status: string; registry_id: string | null };
          return body.status === 'sent' ? body : undefined;
        },
        30_000,
        `submission ${id} to be sent:\n${out}`,
      );
      expect(view.registry_id).toMatch(/^\d+$/);
      const health = (await (await fetch(`${base}/healthz`)).json()) as { worker_alive: boolean; last_registry_login: string | null };
      expect(health).toMatchObject({ worker_alive: true });
      expect(health.last_registry_login).not.toBeNull();
      const sim = (await (await fetch(`http://127.0.0.1:${simPort}/_sim/state`)).json()) as { records: unknown[] };
      expect(sim.records).toHaveLength(1);

      const [row] = await db.sql<{ worker_id: string }[]>`SELECT worker_id FROM worker_state`;
      const workerPid = Number(/-(\d+)-[0-9a-f]+$/.exec(row!.worker_id)![1]);
      expect(alive(workerPid)).toBe(true);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(alive(workerPid)).toBe(false);
      expect(out).toContain('Worker stopping');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
