import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { submissions } from '../../db/schema';
import type * as Store from '../../src/services/submissions/store';
import { correctSubmission } from '../../src/services/submissions/correct';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { HEADER, xlsxFile } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';

// Issue 21: one owner of the submission row. Every writer of a verdict stores what
// store.ts's verdictColumns returns, for every column it returns. Here verdictColumns is
// wrapped so that each column it hands out carries a mark of its own (a value no
// classification produces); each path must then store exactly the marked columns. A column
// added to VERDICT_COLUMNS is marked too, so a path that drops it fails here.

type Columns = Record<string, unknown>;
const handedOut = vi.hoisted(() => [] as Columns[]);

vi.mock('../../src/services/submissions/store', async (importOriginal) => {
  const real = await importOriginal<typeof Store>();
  const { submissions: table } = await import('../../db/schema');
  const mark = (column: (typeof real.VERDICT_COLUMNS)[number], n: number): unknown => {
    const type = table[column].getSQLType();
    if (type === 'jsonb') return { mark: n, column };
    if (type === 'text') return `mark ${n} ${column}`;
    if (type.startsWith('timestamp')) return new Date(Date.UTC(2100, 0, 1 + n));
    throw new Error(`no mark for a verdict column of type ${type}: add one here`);
  };
  return {
    ...real,
    verdictColumns: (...args: Parameters<typeof real.verdictColumns>) => {
      const columns: Columns = { ...real.verdictColumns(...args) };
      const n = handedOut.length;
      // The status stays a real one: the paths count and branch on it.
      for (const column of real.VERDICT_COLUMNS) if (column !== 'status') columns[column] = mark(column, n);
      handedOut.push(columns);
      return columns;
    },
  };
});

const { VERDICT_COLUMNS, verdictColumns } = await vi.importActual<typeof Store>('../../src/services/submissions/store');

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function account() {
  const accountId = await t.createAccount();
  return { accountId, key: await t.createKey(accountId) };
}

/** The row's verdict columns as stored. */
async function stored(id: number): Promise<Columns> {
  const [row] = await t.ctx.db.select().from(submissions).where(eq(submissions.id, id));
  return Object.fromEntries(VERDICT_COLUMNS.map((c) => [c, row![c]]));
}

const lastHandedOut = () => handedOut[handedOut.length - 1]!;

async function post(key: string, overrides: Parameters<typeof makeSubmission>[0] = {}): Promise<number> {
  const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission(overrides) });
  expect(res.status).toBe(200);
  return Number((await json(res)).submission_id);
}

describe('verdictColumns owns the verdict columns', () => {
  it('hands out exactly VERDICT_COLUMNS, the list the bulk statements are built from', () => {
    const verdict = { status: 'needs_data' as const, prestatii: [], erori: [], nemapate: [], motiv: 'x' };
    expect(Object.keys(verdictColumns(verdict, new Date())).sort()).toEqual([...VERDICT_COLUMNS].sort());
    expect(verdictColumns({ ...verdict, status: 'error' }, new Date()).status).toBe('needs_mapping');
  });

  it('the API post stores every column it hands out', async () => {
    const { key } = await account();
    const id = await post(key, { vin: 'SCURT', nrInm: 'B1STORE' });
    expect(await stored(id)).toEqual(lastHandedOut());
    expect(lastHandedOut().status).toBe('needs_data');
  });

  it('the import commit stores every column it hands out', async () => {
    const { key } = await account();
    const batchId = await stage(
      t,
      key,
      await xlsxFile({
        Date: [
          [...HEADER, 'Cod prestație'],
          ['WDB1234561A777001', 'B2STORE', '14.03.2025', null, 120000, null, null, 'OE-3'],
        ],
      }),
    );
    const p = await preview(t, key, batchId);
    expect((await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: { n_confirmed: p.n_to_commit, rows_hash: p.rows_hash } })).status).toBe(200);
    const [row] = await t.ctx.sql<{ id: string }[]>`SELECT id FROM submissions WHERE batch_id = ${batchId}`;
    expect(await stored(Number(row!.id))).toEqual(lastHandedOut());
    expect(lastHandedOut().status).toBe('queued');
  });

  it('the correction stores every column it hands out', async () => {
    const { accountId, key } = await account();
    const id = await post(key, { vin: 'SCURT', nrInm: 'B3STORE' });
    const changes = { vin: 'WDB1234561A777003', nrInm: 'B3STORE', dataPrestatie: '14.03.2025', odometruInitial: null, odometruFinal: '130000' };
    const { status } = await correctSubmission({ ctx: t.ctx, actor: { kind: 'dev', accountId }, id, changes, requestId: 'store-test' });
    expect(status).toBe('queued');
    expect(await stored(id)).toEqual(lastHandedOut());
  });

  it('the re-resolution after a mapping stores every column it hands out', async () => {
    const { key } = await account();
    const id = await post(key, { nrInm: 'B4STORE', prestatii: [{ cod_op_service: 'STORE-4', denumire: 'Probă' }] });
    expect((await stored(id)).status).toBe('needs_mapping');
    const saved = await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'STORE-4', cod_prestatie: 'OE-3' } });
    expect(saved.status).toBe(200);
    expect(await stored(id)).toEqual(lastHandedOut());
    expect(lastHandedOut().status).toBe('queued');
  });
});
