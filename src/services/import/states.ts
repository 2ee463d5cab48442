import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { COMMITTED_STATES, emptyCounts, ROW_STATES, type OdometerReading, type RowState } from '../../domain/import-state';
import type { Suggestion } from '../../domain/suggest';
import { accountExamples, suggestFor } from '../operations/suggestions';
import type { ResolutionContext } from '../../domain/resolve';
import { sentRecordOf } from './sent-records';

/**
 * Every row's state, set-based over the derived columns (see domain/import-state.ts for the
 * rules; this is the same precedence in SQL): stored submissions with either key form joined
 * for the whole batch, and sent ones with the same resolved record, looked up row by row
 * (sent-records.ts); repeats found by a window over the key in row order.
 *
 * What it costs on 100,000 rows: the window sorts only (key, row) pairs, in byte order (a
 * repeat is the same key whatever the collation), and only the repeats are joined back; it
 * used to sort the joined rows, ~250 bytes each, on disk. A row's codes are split and sorted
 * only when a sent submission of its VIN, date and odometer is met. The joins of the batch's
 * rows with `repeats` are chosen on the batch's row count: the staging analyses the rows it
 * wrote (row-writer.ts), without which a batch just staged was estimated at one row.
 */
function statesQuery(accountId: number, batchId: number): SQL {
  return sql`
    WITH repeats AS (
      SELECT row_index, first FROM (
        SELECT row_index, first_value(row_index) OVER (PARTITION BY idem_key COLLATE "C" ORDER BY row_index) AS first
        FROM import_rows WHERE batch_id = ${batchId}
      ) w WHERE first <> row_index
    ), base AS (
      SELECT r.row_index, r.verdict, r.idem_key, r.codes, r.include_review, r.submission_id, r.odometru_final, r.recorded_odometru, r.recorded_data,
        coalesce(k.id, l.id, sr.id) AS existing_id, coalesce(k.status, l.status, sr.status) AS existing_status,
        d.first AS duplicate_of,
        (r.verdict = 'queued' AND r.odometru_final < r.recorded_odometru) AS lower
      FROM import_rows r
      LEFT JOIN repeats d ON d.row_index = r.row_index
      LEFT JOIN submissions k ON k.idempotency_key = r.idem_key AND k.scope_account_id = ${accountId}
      LEFT JOIN submissions l ON l.idempotency_key = r.legacy_key AND l.scope_account_id = ${accountId}
      -- Only for a row no stored submission has the key of: an existing one takes precedence.
      LEFT JOIN LATERAL (${sentRecordOf(accountId, batchId, sql`r.verdict = 'queued' AND k.id IS NULL AND l.id IS NULL`)}) sr ON true
      WHERE r.batch_id = ${batchId}
    ), states AS (
      SELECT *, CASE
        WHEN existing_id IS NOT NULL THEN 'already_sent'
        WHEN duplicate_of IS NOT NULL THEN 'duplicate_in_file'
        WHEN verdict = 'needs_data' THEN 'needs_data'
        WHEN verdict = 'needs_mapping' THEN 'needs_mapping'
        WHEN lower AND include_review = 0 THEN 'needs_review'
        ELSE 'ok' END AS state
      FROM base
    )`;
}

/** One row's state and the batch-wide facts behind it (what `stateReason` and the row view need). */
export interface RowOutcome {
  rowIndex: number;
  state: RowState;
  existing: { id: number; status: string } | null;
  duplicateOf: number | null;
  review: (OdometerReading & { inclus: boolean }) | null;
  odometruFinal: number | null;
}

type OutcomeRow = {
  row_index: number;
  state: RowState;
  existing_id: string | null;
  existing_status: string | null;
  duplicate_of: number | null;
  lower: boolean | null;
  include_review: number;
  recorded_odometru: number | null;
  recorded_data: string | null;
  odometru_final: number | null;
};

function outcome(row: OutcomeRow): RowOutcome {
  const reviewed = row.lower === true && (row.state === 'ok' || row.state === 'needs_review');
  return {
    rowIndex: row.row_index,
    state: row.state,
    existing: row.existing_id === null ? null : { id: Number(row.existing_id), status: row.existing_status ?? '' },
    duplicateOf: row.duplicate_of,
    review: reviewed ? { data: row.recorded_data ?? '', odometru: Number(row.recorded_odometru), inclus: row.include_review !== 0 } : null,
    odometruFinal: row.odometru_final === null ? null : Number(row.odometru_final),
  };
}

export interface BatchSummary {
  total: number;
  counts: Record<RowState, number>;
  nToCommit: number;
  rowsHash: string;
}

const OUTCOME_COLUMNS = sql`row_index, state, existing_id, existing_status, duplicate_of, lower, include_review, recorded_odometru, recorded_data, odometru_final`;

export interface PageQuery {
  filter: SQL;
  limit: number;
  offset: number;
}

/**
 * Counts per state and `rows_hash`: what the user was shown, row by row (index, state, key,
 * resolved codes), hashed in row order, the same text as domain/import-state's hasher. With
 * `page`, that page's outcomes too, from the same evaluation of the states. One pass over the
 * states for the counts, the total and the hash.
 */
export async function batchSummary(exec: Executor, accountId: number, batchId: number, page: PageQuery | null = null): Promise<BatchSummary & { page: RowOutcome[] }> {
  const [row] = await exec.execute<Record<RowState, number> & { rows_hash: string; total: number; page: OutcomeRow[] | null }>(sql`
    ${statesQuery(accountId, batchId)}
    SELECT count(*)::int AS total,
      ${sql.join(
        ROW_STATES.map((state) => sql`count(*) FILTER (WHERE state = ${state})::int AS ${sql.identifier(state)}`),
        sql`, `,
      )},
      encode(sha256(convert_to(coalesce(string_agg(row_index || E'\t' || state || E'\t' || coalesce(idem_key, '') || E'\t' || coalesce(codes, '') || E'\n', '' ORDER BY row_index), ''), 'UTF8')), 'hex') AS rows_hash,
      ${page ? sql`(SELECT json_agg(p ORDER BY p.row_index) FROM (SELECT ${OUTCOME_COLUMNS} FROM states WHERE ${page.filter} ORDER BY row_index LIMIT ${page.limit} OFFSET ${page.offset}) p)` : sql`NULL`} AS page
    FROM states`);
  const counts = emptyCounts();
  for (const state of ROW_STATES) counts[state] = row?.[state] ?? 0;
  const nToCommit = [...COMMITTED_STATES].reduce((n, state) => n + counts[state], 0);
  return { total: row?.total ?? 0, counts, nToCommit, rowsHash: row?.rows_hash ?? '', page: (row?.page ?? []).map(outcome) };
}

/** The outcomes of every row matching `filter` (over the states' columns), in row order. */
export async function rowOutcomes(exec: Executor, accountId: number, batchId: number, filter: SQL): Promise<RowOutcome[]> {
  const rows = await exec.execute<OutcomeRow>(sql`
    ${statesQuery(accountId, batchId)}
    SELECT ${OUTCOME_COLUMNS} FROM states WHERE ${filter} ORDER BY row_index`);
  return rows.map(outcome);
}

/**
 * The same outcomes as `rowOutcomes`, a page at a time through a cursor, so a batch of any
 * size is never held whole. Runs in the caller's transaction (a cursor lives as long as it).
 */
export async function* rowOutcomePages(tx: Executor, accountId: number, batchId: number, filter: SQL, pageSize: number): AsyncGenerator<RowOutcome[]> {
  await tx.execute(sql`
    DECLARE row_outcomes NO SCROLL CURSOR FOR
    ${statesQuery(accountId, batchId)}
    SELECT ${OUTCOME_COLUMNS} FROM states WHERE ${filter} ORDER BY row_index`);
  for (;;) {
    const rows = await tx.execute<OutcomeRow>(sql.raw(`FETCH ${Math.trunc(pageSize)} FROM row_outcomes`));
    if (rows.length === 0) break;
    yield rows.map(outcome);
  }
  await tx.execute(sql`CLOSE row_outcomes`);
}

export const inStates = (states: Iterable<RowState>) =>
  sql`state IN (${sql.join(
    [...states].map((s) => sql`${s}`),
    sql`, `,
  )})`;

export interface OperationToMap {
  codOpService: string;
  denumire: string;
  rows: number;
  suggestion: Suggestion | null;
}

/** The workshop codes no row could resolve, with the first name a row gives each and how many rows have it. */
export async function operationsToMap(exec: Executor, accountId: number, batchId: number, resolution: ResolutionContext): Promise<OperationToMap[]> {
  const rows = await exec.execute<{ code: string; denumire: string | null; rows: number }>(sql`
    SELECT e->>0 AS code, (array_agg(e->>1 ORDER BY r.row_index) FILTER (WHERE e->>1 <> ''))[1] AS denumire, count(*)::int AS rows
    FROM import_rows r, jsonb_array_elements(r.unmapped) AS e
    WHERE r.batch_id = ${batchId} AND r.unmapped IS NOT NULL
    GROUP BY 1`);
  const examples = rows.length ? await accountExamples(exec, accountId) : [];
  return rows
    .map(({ code, denumire, rows: n }) => ({ codOpService: code, denumire: denumire ?? '', rows: n, suggestion: suggestFor({ code, denumire }, resolution.nomenclator, examples) }))
    .sort((a, b) => b.rows - a.rows || a.codOpService.localeCompare(b.codOpService));
}
