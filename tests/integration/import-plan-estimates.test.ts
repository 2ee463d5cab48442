import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER } from '../helpers/import-files';
import { stage } from '../helpers/import-flow';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

const ROWS = 1500;
const fileOf = (prefix: string) =>
  csvFile([
    HEADER,
    ...Array.from({ length: ROWS }, (_, i) => [
      `${prefix}${String(i).padStart(8, '0')}A${String(i).padStart(5, '0')}`,
      'B-1-ABC',
      '14.03.2025',
      150_000 + i,
      150_100 + i,
      'REV',
      'Revizie',
    ]),
  ]);

/** What the planner believes a batch has: the states, readings and links queries join on it. */
async function estimatedRows(batchId: number): Promise<number> {
  const [row] = await t.ctx.sql<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }[]>`EXPLAIN (FORMAT JSON) SELECT 1 FROM import_rows WHERE batch_id = ${batchId}`;
  return row!['QUERY PLAN'][0]!.Plan['Plan Rows'];
}

describe('a batch just staged, against the statistics of the batches before it', () => {
  it('is planned with its own row count, not as one row', async () => {
    await stage(t, key, fileOf('WDB'), 'prestatii.csv');
    // What autovacuum does sooner or later: statistics that know the batches before this one.
    await t.ctx.sql`ANALYZE import_rows`;
    const batchId = await stage(t, key, fileOf('VF1'), 'prestatii.csv');
    expect(await estimatedRows(batchId)).toBeGreaterThan(ROWS / 2);
  });
});
