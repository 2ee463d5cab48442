import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';

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
