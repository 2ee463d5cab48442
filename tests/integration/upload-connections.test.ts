import { getPriority } from 'node:os';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { isLocalDatabase, lowerBackendPriority } from '../../db/backend-priority';
import { reserveConnection } from '../../db/client';
import { startTestApp, type TestApp } from '../helpers/app';
import { schedulingPolicy } from '../helpers/proc';

// Uploads stage on connections of their own (ctx.uploadSql); on a database of this machine,
// their backends run at the lowest CPU priority (nice 19, SCHED_IDLE), and the pool's do not.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const backendOf = async (client: TestApp['ctx']['sql']) => {
  const own = await reserveConnection(client);
  const [{ pid }] = (await own.db.execute(sql`SELECT pg_backend_pid() AS pid`)) as unknown as [{ pid: number }];
  return { own, pid };
};

it("an upload connection's backend runs at the lowest CPU priority; a pool connection's is untouched", async () => {
  expect(isLocalDatabase(t.ctx.uploadSql)).toBe(true);
  const upload = await backendOf(t.ctx.uploadSql);
  const pool = await backendOf(t.ctx.sql);
  try {
    const before = getPriority(pool.pid);
    await lowerBackendPriority(upload.own.db, true);
    expect(getPriority(upload.pid)).toBe(19);
    // SCHED_IDLE (5) is set by chrt, in the background.
    const policy = (pid: number) => schedulingPolicy(`/proc/${pid}/stat`);
    await vi.waitFor(() => expect(policy(upload.pid)).toBe(5), { timeout: 5_000 });
    expect(policy(pool.pid)).toBe(0);
    expect(getPriority(pool.pid)).toBe(before);
    // Not on this machine (as far as the connection says): left alone.
    await lowerBackendPriority(pool.own.db, false);
    expect(getPriority(pool.pid)).toBe(before);
  } finally {
    upload.own.release();
    pool.own.release();
  }
});

it('a database reached over the network is not local', () => {
  expect(isLocalDatabase({ options: { host: ['db.example.ro'] } } as never)).toBe(false);
  expect(isLocalDatabase({ options: { host: ['127.0.0.1', 'db.example.ro'] } } as never)).toBe(false);
  expect(isLocalDatabase({ options: { host: ['/var/run/postgresql'] } } as never)).toBe(true);
});
