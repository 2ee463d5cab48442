import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createImportStagings, type ImportStagings } from '../../src/services/import/stagings';
import { json, startTestApp, type TestApp, WITHOUT_COST_BUDGET } from '../helpers/app';
import { csvFile, HEADER, upload } from '../helpers/import-files';
import { settled } from '../helpers/import-flow';

// Uploads are let in against a limit for the process and one per account, before their body
// is read; each then stages on one connection of its own (ctx.uploadSql, apart from the pool),
// so even a pool of two connections under many uploads and other calls never deadlocks.

let t: TestApp;
let keys: string[];
let original: ImportStagings;
let small: TestApp | undefined;

const VIN = (n: number) => `WDB1234561A${String(100_000 + n)}`;
const file = (rows: number) => csvFile([HEADER, ...Array.from({ length: rows }, (_, i) => [VIN(i), 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie'])]);

beforeAll(async () => {
  // As many upload connections (ctx.uploadSql) as the widest limits the tests below admit.
  t = await startTestApp({ GATEWAY_IMPORT_FIRST_ROWS: '50', GATEWAY_IMPORT_THREAD_AFTER: '0', GATEWAY_IMPORT_UPLOADS_MAX: '4' });
  original = t.ctx.importStagings;
  keys = [];
  for (let i = 0; i < 3; i++) keys.push(await t.createKey(await t.createAccount(`Service ${i}`)));
});
afterEach(async () => {
  if (t.ctx.importStagings !== original) await t.ctx.importStagings.stop();
  t.ctx.importStagings = original;
});
afterAll(async () => {
  await t.close();
  await small?.close();
});

/** Background stagings wait until `release`: their uploads keep their places meanwhile. */
function holdStagings(limits: { uploads: number; perAccount: number; background: number }) {
  const held: Array<() => void> = [];
  t.ctx.importStagings = createImportStagings({ ...limits, schedule: (start) => held.push(start) });
  return () => {
    for (const start of held.splice(0)) start();
  };
}

describe('upload admission', () => {
  it('refuses an account past its uploads in progress with 429 and Retry-After; another account still gets in', async () => {
    const release = holdStagings({ uploads: 4, perAccount: 2, background: 4 });
    const first = await json(await upload(t, keys[0]!, file(300), 'a.csv'));
    const second = await json(await upload(t, keys[0]!, file(300), 'b.csv'));
    expect([first.status, second.status]).toEqual(['staging', 'staging']);
    const refused = await upload(t, keys[0]!, file(300), 'c.csv');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(await json(refused)).toMatchObject({ status: 429, cod: 'IMPORT_PREA_MULTE_INCARCARI', cauza: 'Contul are deja 2 fișiere în curs de încărcare.' });
    expect((await upload(t, keys[1]!, file(10), 'd.csv')).status).toBe(201);
    // Nothing of the refused upload was stored.
    const [batches] = await t.ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM import_batches WHERE filename = 'c.csv'`;
    expect(batches!.n).toBe(0);
    release();
    for (const b of [first, second]) expect((await settled(t, keys[0]!, b.batch_id as number)).status).toBe('staged');
    // Their places are free again.
    expect((await upload(t, keys[0]!, file(10), 'e.csv')).status).toBe(201);
  });

  it('refuses every account past the process limit with 503 and Retry-After', async () => {
    const release = holdStagings({ uploads: 2, perAccount: 2, background: 2 });
    for (const key of keys.slice(0, 2)) expect((await json(await upload(t, key, file(300)))).status).toBe('staging');
    const refused = await upload(t, keys[2]!, file(10));
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '10']);
    expect(await json(refused)).toMatchObject({ status: 503, cod: 'SERVER_OCUPAT', cauza: 'Serverul încarcă deja 2 fișiere.' });
    release();
  });

  it('frees the place of an upload that failed', async () => {
    holdStagings({ uploads: 1, perAccount: 1, background: 1 });
    expect((await upload(t, keys[0]!, Buffer.from(''), 'gol.csv')).status).toBe(422);
    expect((await upload(t, keys[0]!, Buffer.from('%PDF-1.4'), 'x.pdf')).status).toBe(415);
    expect(t.ctx.importStagings.admitted()).toBe(0);
    expect((await upload(t, keys[0]!, file(10))).status).toBe(201);
  });
});

describe('a pool of two connections', () => {
  it('takes six uploads at once (foreground and background) with list calls and mappings beside them, and nothing hangs', async () => {
    // With any path holding one connection while it waits for another, six uploads and the
    // calls beside them would hang for good on two connections.
    small = await startTestApp(
      {
        ...WITHOUT_COST_BUDGET,
        GATEWAY_IMPORT_FIRST_ROWS: '50',
        GATEWAY_IMPORT_UPLOADS_MAX: '6',
        GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: '2',
        GATEWAY_IMPORT_BACKGROUND_MAX: '2',
        GATEWAY_IMPORT_THREAD_AFTER: '0',
      },
      { poolSize: 2 },
    );
    const s = small;
    const [a, b, c, o] = [await s.createAccount('A'), await s.createAccount('B'), await s.createAccount('C'), await s.createAccount('O')];
    const ks = [await s.createKey(a), await s.createKey(b), await s.createKey(c)];
    const otherKey = await s.createKey(o);
    const uploads = Array.from({ length: 6 }, (_, i) => upload(s, ks[i % 3]!, file(i % 2 === 0 ? 1500 : 30), `p${i}.csv`));
    const calls = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0
        ? s.call('GET', '/v1/prezentari?limit=5', { key: otherKey })
        : s.call('POST', '/v1/mapari', { key: otherKey, body: { cod_op_service: `C${i}`, cod_prestatie: 'OE-3' } }),
    );
    const answered = await Promise.all(uploads);
    expect(answered.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    for (const [i, res] of answered.entries()) {
      const batch = await settled(s, ks[i % 3]!, (await json(res)).batch_id as number);
      expect(batch).toMatchObject({ status: 'staged', row_count: i % 2 === 0 ? 1500 : 30 });
    }
    // A batch reads "staged" once its last transaction commits; its place is given back just after.
    await vi.waitFor(() => expect(s.ctx.importStagings.admitted()).toBe(0), { timeout: 5_000 });
    // No lease is left held on a connection back in the pool.
    await vi.waitFor(
      async () => {
        const [left] = await s.ctx.sql<
          { n: number }[]
        >`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND d.datname = current_database()`;
        expect(left!.n).toBe(0);
      },
      { timeout: 5_000 },
    );
  });
});

describe('the nomenclator cache', () => {
  it('never has a transaction await a load queued on the pool (one connection: that wait would never end)', async () => {
    const one = await startTestApp({}, { poolSize: 1 });
    try {
      one.ctx.nomenclator.invalidate();
      const inside = await one.ctx.db.transaction(async (tx) => {
        // Queued behind this very transaction's connection, the only one.
        const queued = one.ctx.nomenclator.get(one.ctx.db);
        const mine = await one.ctx.nomenclator.get(tx);
        return { size: mine.size, queued };
      });
      expect(inside.size).toBeGreaterThan(0);
      expect((await inside.queued).size).toBe(inside.size);
    } finally {
      await one.close();
    }
  });
});
