import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startEmbedded } from '../../db/embedded';
import { clusterDir } from '../../db/embedded-placement';
import { generateApiKey } from '../../src/crypto/hash';
import { parseSimUsers } from '../../worker/registry/sim-state';
import { startSimulator, type Simulator } from '../../worker/registry/simulator';
import { UNTHROTTLED } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { buildDist, spawnGateway, stopGateway, type GatewayProcess } from '../helpers/gateway-processes';
import { BACKUP_PASSPHRASE, runTool, tableRows } from '../helpers/operations-cli';
import { reservePort } from '../helpers/ports';
import { alive, FAST_WORKER_ENV, waitFor } from '../helpers/worker';

// Issue 34, as an operator meets it: the built server runs on its embedded database and takes
// writes; `npm run backup` is run against the same data dir meanwhile (it attaches to the
// server's PostgreSQL, never starts a second one on it); the archive is restored as on a new
// machine, with `npm run restore` into a data dir that does not exist yet (no DATABASE_URL),
// the master key put back beside it, the service started on it. The restored database holds
// every row of one instant, and what was queued then is sent, once. A data dir that holds a
// database is refused, and a wrong passphrase before anything is made. A server started while
// a tool holds the database it started waits for it. The tools run as `npm run` runs them
// (dist/, built once). (backup-restore.test.ts covers DATABASE_URL and the archive's faults.)

let dir: string;
let sim: Simulator;
const processes: GatewayProcess[] = [];
const vinOf = (i: number) => `WDB1234562${String(i).padStart(7, '0')}`;

beforeAll(async () => {
  buildDist();
  dir = mkdtempSync(join(tmpdir(), 'gateway-backup-embedded-'));
  // As root the embedded PostgreSQL runs as the postgres OS user, which must reach the data dirs.
  chmodSync(dir, 0o755);
  sim = await startSimulator({ users: parseSimUsers('demo:demo') });
}, 60_000);

afterAll(async () => {
  // SIGTERM: a server stops the PostgreSQL it started.
  for (const p of processes.reverse()) await stopGateway(p, 'SIGTERM');
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** The settings of a deployment on the embedded database of `dataDir`: no DATABASE_URL, no GATEWAY_SECRET_KEY (the key is the data dir's secret.key). */
const envOf = (dataDir: string) => ({
  ...FAST_WORKER_ENV,
  // Its writer posts one record after another, as fast as the server answers.
  ...UNTHROTTLED,
  GATEWAY_DATA_DIR: dataDir,
  GATEWAY_REGISTRY_URL: sim.url,
  GATEWAY_REQUIRE_API_KEY: 'true',
  GATEWAY_SCRYPT_N: '1024',
  GATEWAY_LOG_LEVEL: 'info',
});
const toolEnv = (dataDir: string) => ({ GATEWAY_DATA_DIR: dataDir, GATEWAY_BACKUP_PASSPHRASE: BACKUP_PASSPHRASE });

/**
 * The built server (dist/main.js, as `npm start` runs it) as a process whose output is read
 * while it starts: spawnGateway answers only once it has started.
 */
async function startBuiltServer(name: string, env: Record<string, string>): Promise<GatewayProcess> {
  const port = await reservePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, HOST: '127.0.0.1', ...env, PORT: String(port), GATEWAY_RUN_WORKER: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const p = { name, child, url: `http://127.0.0.1:${port}`, exited, output: () => out, running: () => child.exitCode === null && child.signalCode === null };
  processes.push(p);
  return p;
}

/** The pid of the postmaster running on the data dir's cluster, if one runs. */
function postmaster(dataDir: string): number | undefined {
  const pidFile = join(clusterDir(dataDir), 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return pid > 0 && alive(pid) ? pid : undefined;
}

async function post(base: string, key: string, path: string, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('a backup of the embedded database while the server runs and writes, restored into a new data dir', () => {
  it('the archive holds every row of one instant; restored on a new machine, the service sends what was queued, once', async () => {
    onTestFailed(() => {
      for (const p of processes) console.log(`--- ${p.name} (${p.running() ? 'running' : 'ended'})\n${p.output().slice(-3000)}`);
    });
    const oldDir = join(dir, 'old-machine');
    const newDir = join(dir, 'new-machine', 'data');
    const archive = join(dir, 'gateway.backup');

    // The old machine: the server on its embedded database, its key generated at its first start.
    const server = await spawnGateway('server', 'backup-old', envOf(oldDir));
    processes.push(server);
    const oldPostmaster = postmaster(oldDir);
    expect(oldPostmaster).toBeDefined();
    const oldSql = postgres((await startEmbedded({ dataDir: oldDir })).url, { max: 2, onnotice: () => {} });
    const newSql: { sql?: postgres.Sql; stop?: () => Promise<void> } = {};
    try {
      const [account] = await oldSql<{ id: number }[]>`INSERT INTO accounts (name) VALUES ('Service Backup Embedded') RETURNING id`;
      const key = generateApiKey();
      await oldSql`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${account!.id}, ${key.hash}, ${key.prefix})`;
      expect((await post(server.url, key.plain, '/v1/conturi/reg-creds', { username: 'demo', password: 'demo' })).status).toBe(200);
      expect((await post(server.url, key.plain, '/v1/mapari', { cod_op_service: 'REV-E', cod_prestatie: 'OE-3' })).status).toBe(200);
      const before = await tableRows(oldSql);

      // Two writers: records through the server's API (its worker is off: they stay queued), and
      // transactions that each add a key and the journal event naming it (an instant spans tables).
      let loading = true;
      const submitted: Array<{ id: number; vin: string }> = [];
      const loadKeys: number[] = [];
      const submitLoad = (async () => {
        for (let i = 0; loading; i++) {
          const res = await post(server.url, key.plain, '/v1/prezentari', makeSubmission({ vin: vinOf(i) }));
          expect(res.body, JSON.stringify(res.body)).toMatchObject({ status: 'queued' });
          submitted.push({ id: res.body.submission_id as number, vin: vinOf(i) });
        }
      })();
      const keyLoad = (async () => {
        while (loading) {
          await oldSql.begin(async (tx) => {
            const [k] = await tx<{ id: number }[]>`
              INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${account!.id}, ${randomBytes(32).toString('hex')}, 'load') RETURNING id`;
            await tx`INSERT INTO app_events (event, data) VALUES ('load', jsonb_build_object('key', ${k!.id}::int))`;
            loadKeys.push(k!.id);
          });
        }
      })();
      await waitFor(() => (submitted.length >= 10 && loadKeys.length >= 10) || undefined, 30_000, 'the writes to start');

      const atStart = { submitted: submitted.length, keys: loadKeys.length };
      const started = performance.now();
      const backup = await runTool('backup', ['--out', archive], toolEnv(oldDir), 120_000, true);
      const backupMs = performance.now() - started;
      const atEnd = { submitted: submitted.length, keys: loadKeys.length };
      await waitFor(() => (submitted.length > atEnd.submitted + 3 && loadKeys.length > atEnd.keys + 3) || undefined, 30_000, 'writes after the backup');
      loading = false;
      await Promise.all([submitLoad, keyLoad]);
      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout.trim()).toBe(archive);
      // It used the server's PostgreSQL: the same postmaster, still serving the server.
      expect(postmaster(oldDir)).toBe(oldPostmaster);
      expect((await fetch(`${server.url}/v1/prezentari/${submitted[0]!.id}`, { headers: { 'X-API-Key': key.plain } })).status).toBe(200);

      const verified = await runTool('backup', ['--verify', archive], { GATEWAY_BACKUP_PASSPHRASE: BACKUP_PASSPHRASE }, 60_000, true);
      expect(verified.code, verified.stderr).toBe(0);
      expect(verified.stdout.trim().split('\n').at(-1)).toBe('ok');

      // A restore into the data dir that holds the database is refused, and changes nothing.
      // The journal is written a moment after each call: the database is read once it is still.
      let final = await tableRows(oldSql);
      await waitFor(
        async () => {
          const again = await tableRows(oldSql);
          const still = JSON.stringify([...again]) === JSON.stringify([...final]);
          final = again;
          return still || undefined;
        },
        10_000,
        'the old database to be still',
      );
      const refused = await runTool('restore', ['--from', archive], toolEnv(oldDir), 120_000, true);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`Restaurarea cere o bază de date goală, iar baza de date din ${oldDir} are deja`);
      expect(await tableRows(oldSql)).toEqual(final);
      await oldSql.end();
      await stopGateway(server, 'SIGTERM');
      expect((await server.exited).code).toBe(0);

      // The new machine. A wrong passphrase is refused before anything is made there.
      const wrong = await runTool('restore', ['--from', archive], { ...toolEnv(newDir), GATEWAY_BACKUP_PASSPHRASE: 'nu este parola arhivei' }, 120_000, true);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/^Parola arhivei nu se potrivește/m);
      expect(existsSync(join(dir, 'new-machine'))).toBe(false);

      // Restored into a data dir that does not exist yet; the restore's own
      // PostgreSQL is stopped when it is done, and no master key is made beside the data.
      const restoreStarted = performance.now();
      const restored = await runTool('restore', ['--from', archive], toolEnv(newDir), 120_000, true);
      const restoreMs = performance.now() - restoreStarted;
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout.trim()).toBe('ok');
      expect(postmaster(newDir)).toBeUndefined();
      expect(existsSync(join(newDir, 'secret.key'))).toBe(false);
      console.log(`backup under load ${backupMs.toFixed(0)} ms, restore into a new data dir ${restoreMs.toFixed(0)} ms`);

      // Read as a tool reads it (the test is one here): the database started for the moment.
      const opened = await startEmbedded({ dataDir: newDir, tool: true });
      newSql.stop = opened.stop;
      newSql.sql = postgres(opened.url, { max: 2, onnotice: () => {} });
      const copy = await tableRows(newSql.sql);
      const ids = async (query: Promise<{ id: number }[]>) => (await query).map((r) => Number(r.id));
      const loadInCopy = await ids(newSql.sql<{ id: number }[]>`SELECT id FROM api_keys WHERE prefix = 'load' ORDER BY id`);
      const eventsInCopy = await ids(newSql.sql<{ id: number }[]>`SELECT (data->>'key')::int AS id FROM app_events WHERE event = 'load' ORDER BY 1`);
      const idsInCopy = await ids(newSql.sql<{ id: number }[]>`SELECT id FROM submissions ORDER BY id`);

      // The master key put back, the service started on the new data dir while the tool still
      // holds its database: the server waits for the tool, which stops that database when it
      // ends, and then starts its own (it never serves from a database about to stop).
      copyFileSync(join(oldDir, 'secret.key'), join(newDir, 'secret.key'));
      chmodSync(join(newDir, 'secret.key'), 0o600);
      const toolPostmaster = postmaster(newDir);
      const restoredServer = await startBuiltServer('backup-new', envOf(newDir));
      await waitFor(() => /waiting for it/.test(restoredServer.output()) || undefined, 60_000, 'the server to wait for the tool');
      await newSql.sql.end();
      await opened.stop();
      newSql.sql = undefined;
      await waitFor(() => /Gateway listening/.test(restoredServer.output()) || undefined, 60_000, 'the restored server to start');
      expect(postmaster(newDir)).not.toBe(toolPostmaster);

      // One instant: each key of the load the copy has, it has with its event; they are the
      // keys written before some moment during the backup, and the records likewise.
      expect([...copy.keys()]).toEqual([...final.keys()]);
      expect(loadInCopy).toEqual(loadKeys.slice(0, loadInCopy.length));
      expect(eventsInCopy).toEqual(loadInCopy);
      expect(loadInCopy.length).toBeGreaterThanOrEqual(atStart.keys);
      expect(loadInCopy.length).toBeLessThanOrEqual(atEnd.keys);
      expect(loadInCopy.length).toBeLessThan(loadKeys.length);
      const inCopy = submitted.filter((s) => idsInCopy.includes(s.id));
      expect(inCopy).toEqual(submitted.slice(0, inCopy.length));
      expect(inCopy.length).toBeGreaterThanOrEqual(atStart.submitted);
      expect(inCopy.length).toBeLessThanOrEqual(atEnd.submitted);
      expect(inCopy.length).toBeLessThan(submitted.length);
      // Every other row as it was: a table the load did not touch is equal whole; one it wrote to
      // holds its rows from before the load and, of the rest, only rows the database still has,
      // but for the request counters (rate_windows), which are updated in place and so were
      // copied at a count between two others.
      for (const [table, rows] of copy) {
        const was = before.get(table)!;
        const now = final.get(table)!;
        if (JSON.stringify(was) === JSON.stringify(now)) {
          expect(rows, table).toEqual(now);
          continue;
        }
        const kept = new Set(now);
        expect(
          was.filter((r) => kept.has(r) && !rows.includes(r)),
          `${table}: rows from before the load`,
        ).toEqual([]);
        if (table !== 'rate_windows') {
          expect(
            rows.filter((r) => !kept.has(r)),
            `${table}: rows the database never had`,
          ).toEqual([]);
        }
      }

      // On the restored database, what was queued at the instant is sent once; what came after
      // is not in it; a new record takes a new id.
      const fresh = await post(restoredServer.url, key.plain, '/v1/prezentari', makeSubmission({ vin: vinOf(9_999_999) }));
      expect(fresh.body).toMatchObject({ status: 'queued' });
      expect(fresh.body.submission_id as number).toBeGreaterThan(Math.max(...idsInCopy));
      expect(sim.state.records).toEqual([]);
      processes.push(await spawnGateway('worker', 'backup-new-worker', envOf(newDir)));
      const expected = [...inCopy.map((s) => s.vin), vinOf(9_999_999)].sort();
      await waitFor(() => (sim.state.records.length >= expected.length ? true : undefined), 60_000, 'the queued records to be sent');
      expect(sim.state.records.map((r) => r.record.vin).sort()).toEqual(expected);
      expect(sim.state.duplicates()).toBe(0);
    } finally {
      await oldSql.end();
      await newSql.sql?.end();
      await newSql.stop?.();
    }
  }, 300_000);
});
