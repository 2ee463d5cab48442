import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { AppContext } from '../../context';
import { itemCode } from '../../domain/canonical';
import {
  COMMITTED_STATES,
  createRowsHasher,
  emptyCounts,
  highestReadingUpTo,
  rowState,
  type OdometerReading,
  type RowState,
} from '../../domain/import-state';
import type { ResolutionContext } from '../../domain/resolve';
import { suggestCode, type Suggestion } from '../../domain/suggest';
import { loadResolutionContext } from '../operations/context';
import type { LoadedBatch } from './batch';
import { readRow, stagedRows } from './rows';

/** What every row keeps between the passes: small, so a 100,000-row batch stays in memory cheaply. */
export interface RowOutcome {
  rowIndex: number;
  key: string;
  legacyKey: string;
  vin: string;
  date: string;
  odometruFinal: number | null;
  verdict: 'queued' | 'needs_data' | 'needs_mapping';
  codes: string[];
  includeReview: boolean;
  submissionId: number | null;
  state: RowState;
  existing: { id: number; status: string } | null;
  duplicateOf: number | null;
  review: (OdometerReading & { inclus: boolean }) | null;
}

export interface OperationToMap {
  cod_op_service: string;
  denumire: string;
  rows: number;
  sugestie: Suggestion | null;
}

export interface BatchDerivation {
  outcomes: RowOutcome[];
  byIndex: Map<number, RowOutcome>;
  counts: Record<RowState, number>;
  rowsHash: string;
  nToCommit: number;
  operations: OperationToMap[];
  resolution: ResolutionContext;
  now: Date;
}

/** Every stored submission of the account with one of these keys (either form): one query for the batch. */
async function storedByKey(exec: Executor, accountId: number, keys: string[]) {
  const found = new Map<string, { id: number; status: string }>();
  if (keys.length === 0) return found;
  const rows = await exec.execute<{ idempotency_key: string; id: string; status: string }>(sql`
    SELECT idempotency_key, id, status FROM submissions
    WHERE coalesce(account_id, 1) = ${accountId}
      AND idempotency_key = ANY(string_to_array(${keys.join(',')}, ','))`);
  for (const row of rows) found.set(row.idempotency_key, { id: Number(row.id), status: row.status });
  return found;
}

/** Odometer readings already recorded for these VINs in the account: the highest per VIN and date. */
async function readingsByVin(exec: Executor, accountId: number, vins: string[]) {
  const readings = new Map<string, OdometerReading[]>();
  if (vins.length === 0) return readings;
  const rows = await exec.execute<{ vin: string; data: string; odometru: number }>(sql`
    SELECT vin, data_prestatie AS data, max((payload_json->>'odometruFinal')::numeric)::float8 AS odometru
    FROM submissions
    WHERE coalesce(account_id, 1) = ${accountId} AND vin = ANY(string_to_array(${vins.join(',')}, ','))
      AND jsonb_typeof(payload_json->'odometruFinal') = 'number'
    GROUP BY vin, data_prestatie`);
  for (const row of rows) {
    const list = readings.get(row.vin) ?? [];
    list.push({ data: row.data, odometru: Number(row.odometru) });
    readings.set(row.vin, list);
  }
  return readings;
}

/**
 * The state of every row of a batch, computed afresh from its content, the user's edits,
 * the account's mappings and what is already stored. Preview, row edit, commit and the
 * failed-rows export all call this, so they cannot disagree.
 */
export async function deriveBatch(ctx: AppContext, exec: Executor, batch: LoadedBatch): Promise<BatchDerivation> {
  const now = ctx.clock();
  const resolution = await loadResolutionContext(ctx, exec, batch.accountId, 'all');
  const outcomes: RowOutcome[] = [];
  const unmapped = new Map<string, { denumire: string; rows: number }>();

  for await (const chunk of stagedRows(exec, batch.id)) {
    for (const staged of chunk) {
      const row = readRow(staged, batch, resolution, now, ctx.keyring);
      const { content, nemapate, prestatii, status } = row.verdict;
      for (const code of nemapate) {
        const entry = unmapped.get(code) ?? { denumire: '', rows: 0 };
        entry.rows += 1;
        entry.denumire ||= content.prestatii.find((i) => itemCode(i) === code)?.denumire ?? '';
        unmapped.set(code, entry);
      }
      outcomes.push({
        rowIndex: row.rowIndex,
        key: row.key,
        legacyKey: row.legacyKey,
        vin: content.vin,
        date: content.dataPrestatie,
        odometruFinal: typeof content.odometruFinal === 'number' ? content.odometruFinal : null,
        verdict: status,
        codes: prestatii.map((p) => p.cod_prestatie),
        includeReview: row.includeReview,
        submissionId: row.submissionId,
        state: 'ok',
        existing: null,
        duplicateOf: null,
        review: null,
      });
    }
  }

  const stored = await storedByKey(exec, batch.accountId, outcomes.flatMap((o) => [o.key, o.legacyKey]));
  const reviewVins = [...new Set(outcomes.filter((o) => o.verdict === 'queued' && o.odometruFinal !== null).map((o) => o.vin))];
  const readings = await readingsByVin(exec, batch.accountId, reviewVins);

  const firstWithKey = new Map<string, number>();
  const counts = emptyCounts();
  const hasher = createRowsHasher();
  let nToCommit = 0;
  for (const o of outcomes) {
    o.existing = stored.get(o.key) ?? stored.get(o.legacyKey) ?? null;
    o.duplicateOf = firstWithKey.get(o.key) ?? null;
    if (o.duplicateOf === null) firstWithKey.set(o.key, o.rowIndex);
    const recorded = o.verdict === 'queued' ? highestReadingUpTo(readings.get(o.vin), o.date) : null;
    const result = rowState({ verdict: o.verdict, existing: o.existing, duplicateOf: o.duplicateOf, recorded, odometruFinal: o.odometruFinal, includeReview: o.includeReview });
    o.state = result.state;
    o.review = result.review;
    counts[o.state] += 1;
    if (COMMITTED_STATES.has(o.state)) nToCommit += 1;
    hasher.add({ rowIndex: o.rowIndex, state: o.state, key: o.key, codes: o.codes });
  }

  const operations = [...unmapped.entries()]
    .map(([cod_op_service, { denumire, rows }]) => ({ cod_op_service, denumire, rows, sugestie: suggestCode(denumire || cod_op_service, resolution.nomenclator) }))
    .sort((a, b) => b.rows - a.rows || a.cod_op_service.localeCompare(b.cod_op_service));

  return { outcomes, byIndex: new Map(outcomes.map((o) => [o.rowIndex, o])), counts, rowsHash: hasher.digest(), nToCommit, operations, resolution, now };
}
