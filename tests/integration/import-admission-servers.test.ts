import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extraStager, json, secondServer, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, uploadNow } from '../helpers/import-files';
import { settled } from '../helpers/import-flow';

// Two servers and two stagers on one database (contexts and apps of their own, as processes
// would have): the limits of files waiting or staging hold for the servers together, and the
// stagers share the queue, fairly between accounts, whichever server took each file.

const ENV = { GATEWAY_IMPORT_FIRST_ROWS: '50', GATEWAY_IMPORT_UPLOADS_MAX: '2', GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: '1' };
let a: TestApp;
let b: TestApp;
let keys: string[];

const VIN = (n: number) => `WDB1234561A${String(100_000 + n)}`;
const file = (rows: number) => csvFile([HEADER, ...Array.from({ length: rows }, (_, i) => [VIN(i), 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie'])]);

beforeAll(async () => {
  a = await startTestApp(ENV, { stager: false });
  b = secondServer(a, ENV);
  keys = [];
  for (let i = 0; i < 3; i++) keys.push(await a.createKey(await a.createAccount(`Service ${i}`)));
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** Two stagers until every batch is no longer waiting; returns who staged each, in the order they were claimed. */
async function stageAll(batches: Array<[key: string, id: number]>) {
  const stagers = [await extraStager(a, 'stager-1'), await extraStager(a, 'stager-2')];
  try {
    for (const [key, id] of batches) expect((await settled(a, key, id)).status).toBe('staged');
  } finally {
    for (const stager of stagers) await stager.close();
  }
  return a.ctx.sql<{ batch_id: number; account_id: number; claimed_by: string }[]>`
    SELECT batch_id, account_id, claimed_by FROM import_uploads WHERE batch_id IN ${a.ctx.sql(batches.map(([, id]) => id))} ORDER BY claimed_at, batch_id`;
}

describe('upload limits across two servers', () => {
  it('an account has one file waiting on both servers together; the deployment two; each refusal at once, with Retry-After', async () => {
    const first = await json(await uploadNow(a, keys[0]!, file(300), 'a.csv'));
    expect(first.status).toBe('queued');
    // The same account on the other server: its one place is taken through A.
    const account = await uploadNow(b, keys[0]!, file(10), 'b.csv');
    expect([account.status, account.headers.get('retry-after')]).toEqual([429, '10']);
    expect(await json(account)).toMatchObject({ cod: 'IMPORT_PREA_MULTE_INCARCARI', cauza: 'Contul are deja 1 fișiere în așteptare sau în curs de încărcare.' });
    const second = await json(await uploadNow(b, keys[1]!, file(300), 'c.csv'));
    expect(second.status).toBe('queued');
    for (const server of [a, b]) {
      const refused = await uploadNow(server, keys[2]!, file(10), 'd.csv');
      expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '10']);
      expect(await json(refused)).toMatchObject({ cod: 'SERVER_OCUPAT', cauza: 'Gateway-ul are deja 2 fișiere în curs de încărcare.' });
    }
    const [stored] = await a.ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM import_batches WHERE filename IN ('b.csv', 'd.csv')`;
    expect(stored!.n).toBe(0);
    await stageAll([
      [keys[0]!, first.batch_id as number],
      [keys[1]!, second.batch_id as number],
    ]);
    // Places free again, on either server.
    const again = [await json(await uploadNow(b, keys[2]!, file(10), 'e.csv')), await json(await uploadNow(a, keys[0]!, file(10), 'f.csv'))];
    expect(again.map((batch) => batch.status)).toEqual(['queued', 'queued']);
    await stageAll([
      [keys[2]!, again[0]!.batch_id as number],
      [keys[0]!, again[1]!.batch_id as number],
    ]);
  });
});

describe('two servers and two stagers', () => {
  it("stage the files sent to either server, and an account's files do not wait behind all of another's", async () => {
    const wide = { GATEWAY_IMPORT_UPLOADS_MAX: '16', GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: '8' };
    const [serverA, serverB] = [secondServer(a, wide), secondServer(a, wide)];
    try {
      const [busy, late] = [keys[0]!, keys[1]!];
      const queued: Array<[string, number]> = [];
      // Six files of one account, then two of another, through either server.
      for (let i = 0; i < 6; i++) queued.push([busy, (await json(await uploadNow(i % 2 ? serverB : serverA, busy, file(1500), `p${i}.csv`))).batch_id as number]);
      for (let i = 0; i < 2; i++) queued.push([late, (await json(await uploadNow(i % 2 ? serverA : serverB, late, file(1500), `q${i}.csv`))).batch_id as number]);
      const claims = await stageAll(queued);
      expect(claims).toHaveLength(8);
      // Both stagers staged files; the later account's two were claimed among the first four,
      // not after the other's six (first come, first served would make them the 7th and 8th).
      expect(new Set(claims.map((c) => c.claimed_by))).toEqual(new Set(['stager-1', 'stager-2']));
      const lateAccount = claims.find((c) => c.batch_id === queued[6]![1])!.account_id;
      const positions = claims.flatMap((c, i) => (c.account_id === lateAccount ? [i] : []));
      expect(positions.length).toBe(2);
      expect(Math.max(...positions)).toBeLessThan(4);
    } finally {
      await serverA.close();
      await serverB.close();
    }
  });
});
