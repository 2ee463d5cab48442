import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';

const TEMPLATE_DB = 'gateway_test_template';

export function databaseUrl(name: string): string {
  return inject('adminDatabaseUrl').replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
}

/** A fresh, migrated database of this test file's own, cloned from the template. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const admin = postgres(inject('adminDatabaseUrl'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DB}`);
  await admin.end();
  return {
    url: databaseUrl(name),
    drop: async () => {
      const a = postgres(inject('adminDatabaseUrl'), { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface TestDatabaseHandle {
  /** Set by the `before` hook. */
  url: string;
  sql: postgres.Sql;
}

/**
 * A fresh database and a client on it, for each test of the file (`each`: a worker heartbeat
 * of one test must not make another's look alive) or for the whole file (`all`). Registers
 * the hooks that create and drop it; read `url` and `sql` inside tests.
 */
export function useTestDatabase(scope: 'each' | 'all'): TestDatabaseHandle {
  const handle = {} as TestDatabaseHandle;
  let drop: () => Promise<void> = async () => {};
  const [before, after] = scope === 'each' ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    handle.url = database.url;
    handle.sql = postgres(database.url, { max: 2, onnotice: () => {} });
  });
  after(async () => {
    await handle.sql.end();
    await drop();
  });
  return handle;
}
