import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../db/migrate';
import { harden } from '../../db/harden-migrations';
import { useTestDatabase } from '../helpers/db';

const db = useTestDatabase('all');

describe('start-up migrations', () => {
  it('are applied once, and running them again changes nothing and loses no data', async () => {
    await db.sql`INSERT INTO submissions (status, payload_json, idempotency_key, vin, nr_inm, data_prestatie) VALUES ('sent', '{}', 'k-keep', 'V', 'P', '2025-01-01')`;
    expect(await migrate(db.sql)).toEqual([]);
    expect((await db.sql`SELECT count(*)::int AS n FROM submissions WHERE idempotency_key = 'k-keep'`)[0]!.n).toBe(1);
  });

  it('upgrade a database whose schema exists but whose bookkeeping does not (an older install)', async () => {
    await db.sql`DROP TABLE gateway_migrations`;
    await db.sql`DELETE FROM nomenclator WHERE cod = 'OE-1'`;
    const applied = await migrate(db.sql);
    expect(applied.length).toBeGreaterThan(0);
    expect((await db.sql`SELECT count(*)::int AS n FROM submissions WHERE idempotency_key = 'k-keep'`)[0]!.n).toBe(1);
    expect((await db.sql`SELECT count(*)::int AS n FROM nomenclator`)[0]!.n).toBe(18);
    expect((await db.sql`SELECT id FROM accounts WHERE id = 1`).length).toBe(1);
  });

  it('re-apply a migration whose content changed since it was recorded (a database of an earlier build)', async () => {
    await db.sql`UPDATE gateway_migrations SET hash = 'older-build' WHERE tag = '0001_worker'`;
    await db.sql`DROP TRIGGER IF EXISTS submissions_notify_queue ON submissions`;
    expect(await migrate(db.sql)).toEqual(['0001_worker']);
    expect(await db.sql`SELECT 1 FROM pg_trigger WHERE tgname = 'submissions_notify_queue'`).toHaveLength(1);
    expect(await migrate(db.sql)).toEqual([]);
    expect((await db.sql`SELECT count(*)::int AS n FROM submissions WHERE idempotency_key = 'k-keep'`)[0]!.n).toBe(1);
  });

  it('run safely when several processes start together', async () => {
    await db.sql`DROP TABLE gateway_migrations`;
    const others = [postgres(db.url, { max: 1, onnotice: () => {} }), postgres(db.url, { max: 1, onnotice: () => {} })];
    const results = await Promise.all([migrate(db.sql), ...others.map((o) => migrate(o))]);
    await Promise.all(others.map((o) => o.end()));
    expect(results.filter((r) => r.length > 0)).toHaveLength(1);
  });

  it('give every row its scope account, NULL counting as account 1, and index the column instead of an expression', async () => {
    await db.sql`INSERT INTO submissions (account_id, status, payload_json, idempotency_key, vin, nr_inm, data_prestatie) VALUES (7, 'sent', '{}', 'k-seven', 'V', 'P', '2025-01-01')`;
    const scopes = await db.sql<{ key: string; scope: number }[]>`
      SELECT idempotency_key AS key, scope_account_id AS scope FROM submissions WHERE idempotency_key IN ('k-keep', 'k-seven') ORDER BY 1`;
    expect(scopes).toEqual([
      { key: 'k-keep', scope: 1 },
      { key: 'k-seven', scope: 7 },
    ]);
    const indexes = await db.sql<{ indexdef: string }[]>`SELECT indexdef FROM pg_indexes WHERE tablename = 'submissions'`;
    expect(indexes.filter((i) => i.indexdef.includes('scope_account_id'))).toHaveLength(7);
    expect(indexes.filter((i) => /coalesce/i.test(i.indexdef))).toEqual([]);
    await db.sql`DELETE FROM submissions WHERE idempotency_key = 'k-seven'`;
  });

  it('generated SQL is hardened to be re-runnable', () => {
    const out = harden(
      'CREATE TABLE "a" (x int);\nCREATE INDEX "i" ON "a" (x);\nALTER TABLE "a" ADD COLUMN "y" int;\nALTER TABLE "a" ADD CONSTRAINT "fk" FOREIGN KEY ("x") REFERENCES "b"("id");\n' +
        'ALTER TABLE "a" DROP CONSTRAINT "uq";\nALTER TABLE "a" DROP COLUMN "z";\nDROP INDEX "old_idx";\nALTER TABLE "a" ADD CONSTRAINT "a_pkey" PRIMARY KEY("x","y");',
    );
    expect(out).toContain('CREATE TABLE IF NOT EXISTS "a"');
    expect(out).toContain('CREATE INDEX IF NOT EXISTS "i"');
    expect(out).toContain('ADD COLUMN IF NOT EXISTS "y"');
    expect(out).toMatch(/DO \$\$ BEGIN ALTER TABLE "a" ADD CONSTRAINT "fk" .*EXCEPTION WHEN duplicate_object OR duplicate_table THEN/);
    expect(out).toContain('DROP CONSTRAINT IF EXISTS "uq"');
    expect(out).toContain('DROP COLUMN IF EXISTS "z"');
    expect(out).toContain('DROP INDEX IF EXISTS "old_idx"');
    expect(out).toMatch(/DO \$\$ BEGIN ALTER TABLE "a" ADD CONSTRAINT "a_pkey" PRIMARY KEY.*OR invalid_table_definition THEN/);
  });
});
