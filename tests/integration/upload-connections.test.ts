import { getPriority } from 'node:os';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { extraStager, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, uploadNow } from '../helpers/import-files';
import { settled } from '../helpers/import-flow';
import { schedulingPolicy } from '../helpers/proc';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';
import { batchOf, webUpload } from '../helpers/web-import';

// An upload (API or dashboard) is put in the queue on the server's pool, and staged by a
// stager: nothing in the upload path changes a PostgreSQL backend's priority or keeps a pooled
// connection. The dashboard's upload once reserved a connection of the main pool and set its
// backend to nice 19 and SCHED_IDLE, for good (issue 33).

const POOL = 3;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ ...FAST_SCRYPT }, { poolSize: POOL, stager: false });
});
afterAll(async () => {
  await t.close();
});

const large = () => csvFile([HEADER, ...Array.from({ length: 3_000 }, (_, i) => [`WDB1234561A${100_000 + i}`, 'B1ABC', '14.03.2025', null, 1000 + i, 'REV', 'Revizie'])]);

it('a dashboard upload and an API upload leave every pooled backend at normal priority and the pool whole', async () => {
  const accountId = await t.createAccount();
  const key = await t.createKey(accountId);
  const user = await makeUser(t, accountId);
  const b = browser(t);
  await b.login(user.email);
  await b.get('/');

  const fromApi = await uploadNow(t, key, large(), 'api.csv');
  expect(fromApi.status).toBe(201);
  const apiBatch = ((await fromApi.json()) as { batch_id: number }).batch_id;
  const fromDashboard = await webUpload(t, b, large(), 'panou.csv');
  expect(fromDashboard.status).toBe(200);
  const webBatch = batchOf(fromDashboard);

  // Both files wait in the queue and no upload holds a connection: the whole pool is free.
  const reserved = await Promise.race([
    Promise.all(Array.from({ length: POOL }, () => t.ctx.sql.reserve())),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000)),
  ]);
  expect(reserved, 'every pooled connection reserved at once').not.toBeNull();
  for (const own of reserved ?? []) own.release();

  // Staged by a stager as another process would (its own context and pool).
  const stager = await extraStager(t, 'stager-b');
  try {
    for (const id of [apiBatch, webBatch]) expect((await settled(t, key, id)).status).toBe('staged');
  } finally {
    await stager.close();
  }

  // Every backend of the database now: the server's pool, at the priority it started with.
  await Promise.all(Array.from({ length: POOL }, () => t.ctx.sql`SELECT pg_sleep(0.05)`));
  const backends = await t.ctx.sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`;
  expect(backends.length).toBeGreaterThanOrEqual(POOL);
  for (const { pid } of backends) {
    expect(getPriority(pid), `nice of backend ${pid}`).toBe(0);
    expect(schedulingPolicy(`/proc/${pid}/stat`), `policy of backend ${pid}`).toBe(0);
  }
});
