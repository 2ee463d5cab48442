import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';
import { statesQuery } from '../../src/services/import/states';
import { sql } from 'drizzle-orm';

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

/** What the planner believes `table` has where `column` is `value`: the import's joins are chosen on it. */
async function estimatedRows(table: string, column: string, value: number): Promise<number> {
  const [row] = await t.ctx.sql.unsafe<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }[]>(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${table} WHERE ${column} = ${Number(value)}`,
  );
  return row!['QUERY PLAN'][0]!.Plan['Plan Rows'];
}

describe('a batch just staged, against the statistics of the batches before it', () => {
  it('is planned with its own row count, not as one row', async () => {
    await stage(t, key, fileOf('WDB'), 'prestatii.csv');
    // What autovacuum does sooner or later: statistics that know the batches before this one.
    await t.ctx.sql`ANALYZE import_rows`;
    const batchId = await stage(t, key, fileOf('VF1'), 'prestatii.csv');
    expect(await estimatedRows('import_rows', 'batch_id', batchId)).toBeGreaterThan(ROWS / 2);
  });

  it('an export uploaded again after its commit: the submissions the commit stored are counted', async () => {
    // An account of its own: one upload at a time per account, and the other test's may still be giving its place back.
    const accountId = await t.createAccount('Reîncărcare');
    const key = await t.createKey(accountId);
    expect((await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'REV', cod_prestatie: 'OE-3' } })).status).toBe(200);
    const file = fileOf('TMB');
    const first = await stage(t, key, file, 'prestatii.csv');
    await t.ctx.sql`ANALYZE`;
    const p = await preview(t, key, first);
    const committed = await t.call('POST', `/v1/import/${first}/commit`, { key, body: { n_confirmed: p.n_to_commit, rows_hash: p.rows_hash } });
    expect(await json(committed)).toMatchObject({ inserted: ROWS });
    const again = await stage(t, key, file, 'prestatii.csv');
    expect(await estimatedRows('submissions', 'scope_account_id', accountId)).toBeGreaterThan(ROWS / 2);
    expect((await preview(t, key, again)).counts).toMatchObject({ already_sent: ROWS });
  });
});

type PlanNode = { 'Relation Name'?: string; 'Actual Loops': number; Plans?: PlanNode[] };
const loopsOver = (node: PlanNode, relation: string): number =>
  (node['Relation Name'] === relation ? node['Actual Loops'] : 0) + (node.Plans ?? []).reduce((sum, child) => sum + loopsOver(child, relation), 0);

describe('a batch planned as one row (a first part shown while the rest stages is not analysed)', () => {
  it('looks each visit up once, not once per visit and row', async () => {
    const accountId = await t.createAccount('Prima parte');
    const key = await t.createKey(accountId);
    expect((await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'REV', cod_prestatie: 'OE-3' } })).status).toBe(200);
    const batchId = await stage(t, key, fileOf('SAL').subarray(0, 40_000), 'prestatii.csv');
    const total = (await preview(t, key, batchId)).total_rows as number;
    expect(total).toBeGreaterThan(300);
    // The plan a one-row estimate gives, whatever the statistics say: nested loops only.
    const plan = await t.ctx.db.transaction(async (tx) => {
      await tx.execute(sql`SET LOCAL enable_hashjoin = off`);
      await tx.execute(sql`SET LOCAL enable_mergejoin = off`);
      const [row] = await tx.execute<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
        sql`EXPLAIN (ANALYZE, FORMAT JSON) ${statesQuery(accountId, batchId)} SELECT count(*) FROM states`,
      );
      return row!['QUERY PLAN'][0]!.Plan;
    });
    // Every line is a visit of its own, each looked for among the sent records once.
    expect(loopsOver(plan, 'import_batch_vin_submissions')).toBeLessThanOrEqual(total);
  });
});
