import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createImportStagings } from '../../src/services/import/stagings';
import { json, secondServer, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, upload } from '../helpers/import-files';
import { settled } from '../helpers/import-flow';

// Two servers on one database (two contexts and apps, as two processes would have): the
// uploads in progress per account (GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT) and in all
// (GATEWAY_IMPORT_UPLOADS_MAX) hold for both together, not for each (upload-places.ts).

const ENV = { GATEWAY_IMPORT_FIRST_ROWS: '50', GATEWAY_IMPORT_THREAD_AFTER: '0', GATEWAY_IMPORT_UPLOADS_MAX: '2', GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT: '1' };
let a: TestApp;
let b: TestApp;
let keys: string[];

const VIN = (n: number) => `WDB1234561A${String(100_000 + n)}`;
const file = (rows: number) => csvFile([HEADER, ...Array.from({ length: rows }, (_, i) => [VIN(i), 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie'])]);

beforeAll(async () => {
  a = await startTestApp(ENV);
  b = secondServer(a, ENV);
  keys = [];
  for (let i = 0; i < 3; i++) keys.push(await a.createKey(await a.createAccount(`Service ${i}`)));
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

/** Both servers' background stagings wait until `release`: their uploads keep their places meanwhile. */
const held: Array<() => void> = [];
function holdStagings() {
  for (const server of [a, b]) server.ctx.importStagings = createImportStagings({ uploads: 2, perAccount: 1, background: 2, schedule: (start) => held.push(start) });
}
const release = () => {
  for (const start of held.splice(0)) start();
};
afterEach(async () => {
  release();
  for (const server of [a, b]) await server.ctx.importStagings.stop();
});

/** Advisory locks held in this test file's database (the cluster is shared with other files). */
async function locksHere(): Promise<number> {
  const [row] = await a.ctx.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
  return row!.n;
}

describe('upload places across two servers', () => {
  it('an account has one upload in progress on both servers together; the deployment two; each refusal at once, with Retry-After', async () => {
    holdStagings();
    const first = await json(await upload(a, keys[0]!, file(300), 'a.csv'));
    expect(first.status).toBe('staging');
    // The same account on the other server: its one place is taken on A.
    const account = await upload(b, keys[0]!, file(10), 'b.csv');
    expect([account.status, account.headers.get('retry-after')]).toEqual([429, '10']);
    expect(await json(account)).toMatchObject({ cod: 'IMPORT_PREA_MULTE_INCARCARI', cauza: 'Contul are deja 1 fișiere în curs de încărcare.' });
    const second = await json(await upload(b, keys[1]!, file(300), 'c.csv'));
    expect(second.status).toBe('staging');
    // Each server has one upload of its own, under its own limit of two; the deployment has two.
    for (const server of [a, b]) {
      const refused = await upload(server, keys[2]!, file(10), 'd.csv');
      expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '10']);
      expect(await json(refused)).toMatchObject({ cod: 'SERVER_OCUPAT', cauza: 'Serverele gateway-ului încarcă deja 2 fișiere.' });
    }
    const [stored] = await a.ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM import_batches WHERE filename IN ('b.csv', 'd.csv')`;
    expect(stored!.n).toBe(0);
    // The refused account's place was given back with the deployment's refusal: A and B hold two places each (account, deployment).
    expect(await locksHere()).toBe(2 * 2 + 2);
    release();
    expect((await settled(a, keys[0]!, first.batch_id as number)).status).toBe('staged');
    expect((await settled(b, keys[1]!, second.batch_id as number)).status).toBe('staged');
    // Places free again, on either server; nothing left locked on a connection back in the pools.
    expect((await upload(b, keys[2]!, file(10), 'e.csv')).status).toBe(201);
    expect((await upload(a, keys[0]!, file(10), 'f.csv')).status).toBe(201);
    expect(await locksHere()).toBe(0);
  });
});
