import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { parseConfig } from '../../src/config';
import { createKeyring, envelopeKeyId } from '../../src/crypto/envelope';
import { ENCRYPTED_COLUMNS } from '../../src/crypto/encrypted-columns';
import { checkMasterKey, openMasterKey } from '../../src/crypto/master-keys';
import { rotateMasterKey } from '../../src/crypto/rotate';
import { createContext } from '../../src/runtime';
import { createWorkerContext } from '../../worker/context';
import { startWorker } from '../../worker/runner';
import { apiClient, TEST_SECRET, type TestApp } from '../helpers/app';
import { buildDist, spawnGateway, stopGateway } from '../helpers/gateway-processes';
import { csvFile, HEADER } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';
import { runTool } from '../helpers/operations-cli';
import { FAST_WORKER_ENV, quietLog, startWorkerHarness, waitFor, type WorkerHarness } from '../helpers/worker';
import { apiOverHarness } from '../helpers/worker-api';

// Issue 34: the database records the master keys its data is under; a process that lacks one
// refuses to start naming it (never a new key beside the data); `npm run rotate-key` moves
// everything under a new key, online and resumable, after which the old one can go.

const NEW_KEY = randomBytes(32).toString('base64');
const keyId = (key: string) => createKeyring(key).currentKeyId;

let h: WorkerHarness;
let t: TestApp;
let accountId: number;
let apiKey: string;

beforeAll(async () => {
  buildDist();
  h = await startWorkerHarness();
  t = await apiOverHarness(h);
  accountId = await t.createAccount('Service Chei');
  apiKey = await t.createKey(accountId);
}, 120_000);
afterAll(() => h?.close());

describe('a process whose keys cannot decrypt the data refuses to start', () => {
  it('server and worker with another key (DATABASE_URL) exit naming the missing key id', async () => {
    const env = { ...FAST_WORKER_ENV, DATABASE_URL: h.database.url, GATEWAY_REGISTRY_URL: h.sim.url };
    const first = await spawnGateway('server', 'keys-first', { ...env, GATEWAY_SECRET_KEY: TEST_SECRET });
    await stopGateway(first, 'SIGTERM');
    expect((await h.app.sql`SELECT key_id FROM master_keys`).map((r) => r.key_id)).toEqual([keyId(TEST_SECRET)]);
    const line = new RegExp(`^.*Cheia principală ${keyId(TEST_SECRET)} lipsește: .*GATEWAY_OLD_SECRET_KEYS.*$`, 'm');
    await expect(spawnGateway('server', 'keys-wrong', { ...env, GATEWAY_SECRET_KEY: NEW_KEY })).rejects.toThrow(line);
    await expect(spawnGateway('worker', 'keys-wrong-w', { ...env, GATEWAY_SECRET_KEY: NEW_KEY })).rejects.toThrow(line);
  }, 180_000);

  it('with the embedded database, a secret.key moved aside is not replaced by a new one', async () => {
    // The data dir's key file, as `npm start` reads it without GATEWAY_SECRET_KEY.
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-keys-embedded-'));
    const keyFile = join(dataDir, 'secret.key');
    try {
      const config = parseConfig({ GATEWAY_DATA_DIR: dataDir });
      writeFileSync(keyFile, `${TEST_SECRET}\n`, { mode: 0o600 });
      expect(await openMasterKey(config, h.database.url, () => {})).toBe(TEST_SECRET);
      renameSync(keyFile, `${keyFile}.aside`);
      await expect(openMasterKey(config, h.database.url, () => {})).rejects.toThrow(
        new RegExp(`^Cheia principală ${keyId(TEST_SECRET)} lipsește: .*nu există ${keyFile} și nici GATEWAY_SECRET_KEY`),
      );
      expect(existsSync(keyFile)).toBe(false);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm run rotate-key', () => {
  it('re-encrypts every encrypted column under the new key, online and resumably; then the old key can go', async () => {
    // Data under the old key in every encrypted column.
    const { id: queuedId } = await h.submit(accountId, { vin: 'WDB1234561A111111' });
    await h.app.sql`UPDATE submissions SET reg_creds_enc = ${h.app.keyring.encrypt(JSON.stringify({ username: 'demo', password: 'demo' }))} WHERE id = ${queuedId}`;
    const rows = Array.from({ length: 12 }, (_, i) => [`WDB1234561A${String(800000 + i)}`, `B-${20 + i}-ROT`, '14.03.2025', 150000, 150100 + i, 'REV', 'Revizie']);
    const batchId = await stage(t, apiKey, csvFile([HEADER, ...rows]), 'rotatie.csv');
    await h.app.sql`INSERT INTO import_rows (batch_id, row_index, raw_enc) VALUES (${batchId}, 10000, ${h.app.keyring.encrypt('["rând vechi"]')})`;
    await h.app.sql`INSERT INTO registry_sessions (account_id, epoch, token_enc, login_id, expires_at, worker_id)
                    VALUES (${accountId}, 0, ${h.app.keyring.encrypt('token')}, 'l1', now() + interval '1 hour', 'w0') ON CONFLICT DO NOTHING`;
    await h.app.sql`INSERT INTO master_keys (key_id) VALUES (${keyId(TEST_SECRET)}) ON CONFLICT DO NOTHING`;
    const values = async () => {
      const found: string[] = [];
      for (const c of ENCRYPTED_COLUMNS) {
        for (const r of await h.app.sql.unsafe<{ v: string }[]>(`SELECT "${c.column}" AS v FROM "${c.table}" WHERE "${c.column}" IS NOT NULL`)) found.push(r.v);
      }
      return found;
    };
    for (const c of ENCRYPTED_COLUMNS) {
      expect((await h.app.sql.unsafe(`SELECT 1 FROM "${c.table}" WHERE "${c.column}" IS NOT NULL LIMIT 1`)).length, `${c.table}.${c.column} has a value`).toBe(1);
    }

    // The new key alone is refused while data is under the old one.
    const onlyNew = parseConfig({ DATABASE_URL: h.database.url, GATEWAY_SECRET_KEY: NEW_KEY });
    await expect(checkMasterKey(h.app.sql, onlyNew, () => {})).rejects.toThrow(`Cheia principală ${keyId(TEST_SECRET)} lipsește`);

    // The service restarted with the new key (the old one to read) keeps writing meanwhile.
    const config = parseConfig({
      GATEWAY_DATA_DIR: h.dataDir,
      DATABASE_URL: h.database.url,
      GATEWAY_SECRET_KEY: NEW_KEY,
      GATEWAY_OLD_SECRET_KEYS: TEST_SECRET,
      ...FAST_WORKER_ENV,
    });
    const server = createContext({ config, databaseUrl: h.database.url, secretKey: NEW_KEY, processName: 'rotated' });
    const api = apiClient(createApp(server), server);
    let writing = true;
    const writes = (async () => {
      while (writing) {
        const res = await api.call('POST', '/v1/conturi/reg-creds', { key: apiKey, body: { username: 'demo', password: 'demo' } });
        if (res.status >= 500) throw new Error(`write failed: ${res.status}`);
      }
    })();

    // Interrupted after its first batch, then run again as the command: it ends the work.
    const ring = createKeyring(NEW_KEY, [TEST_SECRET]);
    let batches = 0;
    await expect(
      rotateMasterKey(h.app.sql, ring, {
        batch: 2,
        progress: () => {
          if (++batches === 1) throw new Error('interrupted');
        },
      }),
    ).rejects.toThrow('interrupted');
    const partway = await values();
    expect(partway.filter((v) => envelopeKeyId(v) === keyId(NEW_KEY)).length).toBeGreaterThan(0);
    expect(partway.filter((v) => envelopeKeyId(v) === keyId(TEST_SECRET)).length).toBeGreaterThan(0);

    const rotated = await runTool('rotate-key', ['--batch', '3'], { DATABASE_URL: h.database.url, GATEWAY_SECRET_KEY: NEW_KEY, GATEWAY_OLD_SECRET_KEYS: TEST_SECRET });
    writing = false;
    await writes;
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout.trim()).toBe(keyId(NEW_KEY));
    expect(rotated.stderr).toContain(`Nimic nu mai este criptat cu ${keyId(TEST_SECRET)}`);

    // The old key removed: everything decrypts with the new one alone, and processes start without it.
    const onlyNewRing = createKeyring(NEW_KEY);
    for (const v of await values()) {
      expect(envelopeKeyId(v)).toBe(keyId(NEW_KEY));
      expect(() => onlyNewRing.decryptBytes(v)).not.toThrow();
    }
    expect((await h.app.sql`SELECT key_id FROM master_keys`).map((r) => r.key_id)).toEqual([keyId(NEW_KEY)]);
    expect(await checkMasterKey(h.app.sql, onlyNew, () => {})).toBe(NEW_KEY);

    const newOnly = parseConfig({ GATEWAY_DATA_DIR: h.dataDir, GATEWAY_SECRET_KEY: NEW_KEY, ...FAST_WORKER_ENV });
    const app = createContext({ config: newOnly, databaseUrl: h.database.url, secretKey: NEW_KEY, processName: 'new-only' });
    const worker = createWorkerContext({ config: newOnly, databaseUrl: h.database.url, secretKey: NEW_KEY, registryUrl: h.sim.url, log: quietLog });
    const running = await startWorker(worker);
    try {
      // Import rows (and their VIN key) read with the new key alone.
      const shown = await preview({ ...t, ...apiClient(createApp(app), app) }, apiKey, batchId);
      expect(shown.total_rows).toBe(13);
      expect(shown.rows[0]!.values).toMatchObject({ vin: 'WDB1234561A800000', nrInm: 'B20ROT' });
      // Credentials too: the record queued under the old key is sent.
      await waitFor(async () => (await h.row(queuedId)).status === 'sent' || undefined, 20_000, 'the queued record to be sent');
    } finally {
      await running.stop();
      await worker.close();
      await app.close();
      await server.close();
    }
  }, 240_000);
});
