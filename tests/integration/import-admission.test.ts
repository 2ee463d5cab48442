import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { admitUpload, queueUpload, startStager, type UploadAdmission } from '../../src/services/import';
import { json, startTestApp, TEST_STAGER, type TestApp } from '../helpers/app';
import { csvFile, HEADER, upload, uploadNow } from '../helpers/import-files';
import { settled } from '../helpers/import-flow';

// Uploads are let in before their body is read, against the files waiting or staging in the
// whole deployment, per account and in all; each is then queued for a stager, so even a pool of
// two connections under many uploads, a stager and other calls never deadlocks.

let t: TestApp;
let keys: string[];
let small: TestApp | undefined;

const VIN = (n: number) => `WDB1234561A${String(100_000 + n)}`;
const file = (rows: number) => csvFile([HEADER, ...Array.from({ length: rows }, (_, i) => [VIN(i), 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie'])]);

beforeAll(async () => {
  // No stager: the files stay queued until a test starts one.
  t = await startTestApp({ GATEWAY_IMPORT_FIRST_ROWS: '50', GATEWAY_IMPORT_UPLOADS_MAX: '3', GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: '2' }, { stager: false });
  keys = [];
  for (let i = 0; i < 3; i++) keys.push(await t.createKey(await t.createAccount(`Service ${i}`)));
});
afterAll(async () => {
  await t.close();
  await small?.close();
});

/** Stages whatever waits, then stops. */
async function drain(batches: Array<[key: string, id: number]>) {
  const stager = await startStager(t.ctx, { id: 'drain', ...TEST_STAGER });
  try {
    for (const [key, id] of batches) expect((await settled(t, key, id)).status).not.toBe('queued');
  } finally {
    await stager.stop();
  }
}

describe('upload admission', () => {
  it('refuses an account past its files waiting or staging with 429 and Retry-After; another account still gets in', async () => {
    const first = await json(await uploadNow(t, keys[0]!, file(300), 'a.csv'));
    const second = await json(await uploadNow(t, keys[0]!, file(300), 'b.csv'));
    expect([first.status, second.status]).toEqual(['queued', 'queued']);
    const refused = await uploadNow(t, keys[0]!, file(300), 'c.csv');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(await json(refused)).toMatchObject({ status: 429, cod: 'IMPORT_PREA_MULTE_INCARCARI', cauza: 'Contul are deja 2 fișiere în așteptare sau în curs de încărcare.' });
    const other = await json(await uploadNow(t, keys[1]!, file(10), 'd.csv'));
    expect(other.status).toBe('queued');
    // Nothing of the refused upload was stored.
    const [batches] = await t.ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM import_batches WHERE filename = 'c.csv'`;
    expect(batches!.n).toBe(0);
    await drain([
      [keys[0]!, first.batch_id as number],
      [keys[0]!, second.batch_id as number],
      [keys[1]!, other.batch_id as number],
    ]);
    // Their places are free again.
    expect((await uploadNow(t, keys[0]!, file(10), 'e.csv')).status).toBe(201);
  });

  it('refuses every account past the deployment limit with 503 and Retry-After', async () => {
    // e.csv of the test above still waits: two more fill the deployment's three.
    const queued = [];
    for (const key of keys.slice(1, 3)) queued.push([key, (await json(await uploadNow(t, key, file(300)))).batch_id as number] as [string, number]);
    const refused = await uploadNow(t, keys[2]!, file(10));
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '10']);
    expect(await json(refused)).toMatchObject({ status: 503, cod: 'SERVER_OCUPAT', cauza: 'Gateway-ul are deja 3 fișiere în curs de încărcare.' });
    const [e] = await t.ctx.sql<{ id: number }[]>`SELECT id FROM import_batches WHERE filename = 'e.csv'`;
    await drain([...queued, [keys[0]!, e!.id]]);
  });

  it('refuses at once a file that is no spreadsheet, empty or password-protected, keeping no place', async () => {
    expect((await uploadNow(t, keys[0]!, Buffer.from(''), 'gol.csv')).status).toBe(422);
    expect((await uploadNow(t, keys[0]!, Buffer.from('%PDF-1.4'), 'x.pdf')).status).toBe(415);
    expect(t.ctx.uploads.reading(0).total).toBe(0);
    const [queued] = await t.ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM import_batches WHERE status = 'queued'`;
    expect(queued!.n).toBe(0);
  });

  it('counts once an upload of the account that queues its batch while another is being let in: both fit, both get in', async () => {
    const accountId = await t.createAccount('Service grăbit');
    const key = await t.createKey(accountId);
    // One upload of the account is reading its body...
    const first = await admitUpload(t.ctx, accountId);
    expect(first).not.toHaveProperty('refused');
    // ...and queues its batch, giving its place back, just as the second one's count is taken.
    let batchId = 0;
    const db = new Proxy(t.ctx.db, {
      get(target, name, receiver) {
        if (name !== 'execute') return Reflect.get(target, name, receiver);
        return async (query: Parameters<typeof target.execute>[0]) => {
          if (batchId === 0) {
            const actor = { kind: 'dev' as const, accountId };
            batchId = (await queueUpload({ ctx: t.ctx, actor, admission: first as UploadAdmission, filename: 'a.csv', bytes: file(5), sheets: [], requestId: 'r' })).id;
          }
          return target.execute(query);
        };
      },
    });
    // The account may have two: its queued file and this one.
    const second = await admitUpload({ ...t.ctx, db }, accountId);
    expect(second).not.toHaveProperty('refused');
    (second as UploadAdmission).release();
    await drain([[key, batchId]]);
  });
});

describe('a pool of two connections', () => {
  it('takes six uploads at once, with a stager on the same pool and list calls and mappings beside them, and nothing hangs', async () => {
    // With any path holding one connection while it waits for another, six uploads and the
    // calls beside them would hang for good on two connections.
    small = await startTestApp(
      {
        GATEWAY_IMPORT_FIRST_ROWS: '50',
        GATEWAY_IMPORT_UPLOADS_MAX: '6',
        GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: '2',
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
    expect(s.ctx.uploads.reading(0).total).toBe(0);
    // No lock is left held on a connection back in the pool.
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
