import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config';
import { createContext } from '../../src/runtime';
import { createSubmission } from '../../src/services/submissions/create';
import { createWorkerContext } from '../../worker/context';
import { startWorker } from '../../worker/runner';
import { TEST_SECRET, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { csvFile, HEADER } from '../helpers/import-files';
import { stage } from '../helpers/import-flow';
import { BACKUP_PASSPHRASE, createEmptyDatabase, runTool as runSourceTool, tableRows } from '../helpers/operations-cli';
import { buildDist } from '../helpers/gateway-processes';
import { makeUser } from '../helpers/web';
import { FAST_WORKER_ENV, quietLog, startWorkerHarness, waitFor, type WorkerHarness } from '../helpers/worker';
import { apiOverHarness } from '../helpers/worker-api';

// Issue 34: `npm run backup` copies a database the service is writing to, from one snapshot;
// `npm run restore` loads it into an empty database, which then works: its queued records are
// sent. Both run as the commands an operator runs (src/cli/*), with DATABASE_URL.

let h: WorkerHarness;
let t: TestApp;
let dir: string;
let target: { url: string; drop: () => Promise<void> };
let accountId: number;
const queued: number[] = [];
// The tools as `npm run` runs them, built once: no TypeScript loader in each of their processes.
const runTool = (tool: 'backup' | 'restore', args: string[], env: Record<string, string>) => runSourceTool(tool, args, env, 120_000, true);
const env = (url: string) => ({ DATABASE_URL: url, GATEWAY_BACKUP_PASSPHRASE: BACKUP_PASSPHRASE, GATEWAY_SECRET_KEY: TEST_SECRET });

beforeAll(async () => {
  buildDist();
  h = await startWorkerHarness();
  t = await apiOverHarness(h);
  dir = mkdtempSync(join(tmpdir(), 'gateway-backup-'));
  target = await createEmptyDatabase();
  // A realistic mix: an account with credentials, a key, a user, queued records, an import
  // staged (its rows and VIN key encrypted), a registry session, and a journal large enough
  // that copying it takes a while under the writes.
  accountId = await t.createAccount('Service Backup');
  const key = await t.createKey(accountId);
  await makeUser(t, accountId);
  for (let i = 0; i < 3; i++) queued.push((await h.submit(accountId, { vin: `WDB12345610${String(i).padStart(6, '0')}` })).id);
  const rows = Array.from({ length: 30 }, (_, i) => [`WDB1234561A${String(700000 + i)}`, `B-${10 + i}-ABC`, '14.03.2025', 150000, 150100 + i, 'REV', 'Revizie']);
  await stage(t, key, csvFile([HEADER, ...rows]), 'prestatii.csv');
  await h.app.sql`INSERT INTO registry_sessions (account_id, epoch, token_enc, login_id, expires_at, worker_id)
                  VALUES (${accountId}, 0, ${h.app.keyring.encrypt('token-sesiune')}, 'l1', now() + interval '1 hour', 'w0')`;
  await h.app.sql`INSERT INTO master_keys (key_id) VALUES (${h.app.keyring.currentKeyId}) ON CONFLICT DO NOTHING`;
  await h.app.sql`INSERT INTO app_events (event, data) SELECT 'istoric', jsonb_build_object('n', g, 'text', repeat('x', 200)) FROM generate_series(1, 60000) g`;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await target?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('backup under write load, restored into an empty database', () => {
  it('holds every row of one instant; the restored database works and sends what was queued', async () => {
    // Writes go on through the backup: each load transaction adds a key and the event naming it,
    // and records are created through the real service.
    let loading = true;
    const loadKeys: number[] = [];
    const loadSubmissions: number[] = [];
    const keyLoad = (async () => {
      while (loading) {
        await h.app.sql.begin(async (tx) => {
          const [k] = await tx<
            { id: number }[]
          >`INSERT INTO api_keys (account_id, key_hash, prefix) VALUES (${accountId}, ${randomBytes(32).toString('hex')}, 'load') RETURNING id`;
          await tx`INSERT INTO app_events (event, data) VALUES ('load', ${JSON.stringify({ key: k!.id })}::jsonb)`;
          loadKeys.push(k!.id);
        });
      }
    })();
    const submitLoad = (async () => {
      for (let i = 0; loading; i++) loadSubmissions.push((await h.submit(accountId, { vin: `WDB1234562${String(i).padStart(7, '0')}` })).id);
    })();
    await waitFor(() => loadKeys.length > 20 || undefined, 10_000, 'the load to start');
    const archive = join(dir, 'gateway.backup');
    const backup = await runTool('backup', ['--out', archive], env(h.database.url));
    const writtenDuring = loadKeys.length;
    await waitFor(() => loadKeys.length > writtenDuring + 5 || undefined, 10_000, 'writes after the backup');
    loading = false;
    await Promise.all([keyLoad, submitLoad]);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout.trim().split('\n').at(-1)).toBe(archive);
    expect(backup.stderr).toMatch(/Cheia principală nu este în arhivă/);
    // Encrypted: neither a name nor a journal line in clear.
    const bytes = readFileSync(archive);
    expect(bytes.includes('Service Backup')).toBe(false);
    expect(bytes.includes('istoric')).toBe(false);
    expect(statSync(archive).mode & 0o077).toBe(0);

    const verified = await runTool('backup', ['--verify', archive], env(h.database.url));
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^app_events\t\d+$/m);

    const restored = await runTool('restore', ['--from', archive], env(target.url));
    expect(restored.code, restored.stderr).toBe(0);

    const sourceSql = postgres(h.database.url, { max: 1, onnotice: () => {} });
    const targetSql = postgres(target.url, { max: 2, onnotice: () => {} });
    try {
      const source = await tableRows(sourceSql);
      const copy = await tableRows(targetSql);
      expect([...copy.keys()]).toEqual([...source.keys()]);
      // Tables the load wrote to hold, in the copy, rows of the source as they were; the others are equal.
      const written = new Set(['api_keys', 'app_events', 'submissions']);
      for (const [table, rows] of copy) {
        if (!written.has(table)) {
          expect(rows, table).toEqual(source.get(table));
          continue;
        }
        const all = new Set(source.get(table));
        expect(
          rows.filter((r) => !all.has(r)),
          table,
        ).toEqual([]);
      }
      // One instant: every key of the load the copy has, it has with its event, and none without;
      // the keys are those written before some moment (a prefix), and writes went on after it.
      const keys = (await targetSql<{ id: number }[]>`SELECT id FROM api_keys WHERE prefix = 'load' ORDER BY id`).map((r) => r.id);
      const events = (await targetSql<{ key: number }[]>`SELECT (data->>'key')::int AS key FROM app_events WHERE event = 'load' ORDER BY 1`).map((r) => r.key);
      expect(events).toEqual(keys);
      expect(keys).toEqual(loadKeys.slice(0, keys.length));
      expect(keys.length).toBeGreaterThan(20);
      expect(keys.length).toBeLessThan(loadKeys.length);
      const subs = (await targetSql<{ id: number }[]>`SELECT id::int AS id FROM submissions WHERE id = ANY(${loadSubmissions}) ORDER BY id`).map((r) => r.id);
      expect(subs).toEqual(loadSubmissions.slice(0, subs.length));
      expect(subs.length).toBeLessThan(loadSubmissions.length);

      // The restored database: at the current schema, new ids past the loaded ones, and a worker
      // on it sends what was queued with the credentials stored encrypted.
      const migrations = (s: postgres.Sql) => s<{ tag: string }[]>`SELECT tag FROM gateway_migrations ORDER BY tag`;
      expect(await migrations(targetSql)).toEqual(await migrations(sourceSql));
      const config = parseConfig({ GATEWAY_DATA_DIR: h.dataDir, GATEWAY_SECRET_KEY: TEST_SECRET, ...FAST_WORKER_ENV });
      const app = createContext({ config, databaseUrl: target.url, secretKey: TEST_SECRET, processName: 'restored' });
      const worker = createWorkerContext({ config, databaseUrl: target.url, secretKey: TEST_SECRET, registryUrl: h.sim.url, log: quietLog });
      const running = await startWorker(worker);
      try {
        const fresh = await createSubmission({
          ctx: app,
          actor: { kind: 'dev', accountId },
          input: makeSubmission({ reg_credentials: { username: 'demo', password: 'demo' }, vin: 'WDB1234563A000001' }),
          requestId: 'after-restore',
        });
        expect(fresh.id).toBeGreaterThan(Math.max(...subs, ...queued));
        for (const id of [...queued, fresh.id!]) {
          await waitFor(
            async () => (await targetSql<{ status: string }[]>`SELECT status FROM submissions WHERE id = ${id}`)[0]?.status === 'sent' || undefined,
            20_000,
            `submission ${id} sent from the restored database`,
          );
        }
      } finally {
        await running.stop();
        await worker.close();
        await app.close();
      }
    } finally {
      await sourceSql.end();
      await targetSql.end();
    }
  }, 300_000);

  it('restore refuses a database that holds anything, and changes nothing in it', async () => {
    const archive = join(dir, 'refuse.backup');
    expect((await runTool('backup', ['--out', archive], env(h.database.url))).code).toBe(0);
    const before = await tableRows(h.app.sql);
    const refused = await runTool('restore', ['--from', archive], env(h.database.url));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Restaurarea cere o bază de date goală, iar baza de date din DATABASE_URL are deja \d+ tabele, cu rânduri în .*accounts/m);
    expect(await tableRows(h.app.sql)).toEqual(before);
    // An existing archive is never written over.
    const again = await runTool('backup', ['--out', archive], env(h.database.url));
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/există deja/);
  }, 120_000);

  it('--verify reads the archive end to end: a changed byte, a cut-off end, a wrong passphrase are each named', async () => {
    const archive = join(dir, 'verify.backup');
    expect((await runTool('backup', ['--out', archive], env(h.database.url))).code).toBe(0);
    const good = readFileSync(archive);
    const check = async (bytes: Buffer, extra: Record<string, string> = {}) => {
      const path = join(dir, `v-${randomBytes(4).toString('hex')}`);
      writeFileSync(path, bytes);
      return runTool('backup', ['--verify', path], { ...env(h.database.url), ...extra });
    };
    expect((await check(good)).code).toBe(0);

    const flipped = Buffer.from(good);
    flipped[Math.floor(good.length / 2)]! ^= 0x01;
    const damaged = await check(flipped);
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toMatch(/^Arhiva este deteriorată: partea \d+ \(octeții \d+–\d+\) nu trece verificarea\.$/m);
    expect(damaged.stdout).not.toMatch(/ok/);

    const cut = await check(good.subarray(0, good.length - 100));
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/trunchiată/);

    const wrong = await check(good, { GATEWAY_BACKUP_PASSPHRASE: 'alta parola destul de lunga' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/Parola arhivei nu se potrivește/);

    const none = await runTool('backup', ['--verify', archive], { DATABASE_URL: h.database.url });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/GATEWAY_BACKUP_PASSPHRASE/);
  }, 120_000);
});
