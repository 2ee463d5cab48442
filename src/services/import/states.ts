import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { COMMITTED_STATES, emptyCounts, ROW_STATES, type OdometerReading, type RowState } from '../../domain/import-state';
import type { Suggestion } from '../../domain/suggest';
import { accountExamples, suggestFor } from '../operations/suggestions';
import type { ResolutionContext } from '../../domain/resolve';
import { recordOf } from './sent-records';

/** A line still in the file: neither left out as no service nor left out by hand (`r.` for an aliased table). */
const inFile = (qualifier: '' | 'r.') => sql.raw(`${qualifier}left_out IS NULL AND ${qualifier}left_out_by IS NULL`);

/**
 * Every row's state, set-based over the derived columns (see domain/import-state.ts for the
 * rules; this is the same precedence in SQL): stored submissions with either key form joined
 * for the whole batch; the lines of one service visit (same `visit_key`: VIN, date and
 * odometers) grouped into one record, judged as one (the worst line's verdict, two plates held)
 * and compared by its resolved record, looked up visit by visit (sent-records.ts), with the
 * account's queued and sent submissions; repeats found by a window over the key in row order.
 *
 * What it costs on 100,000 rows: the window sorts only (key, row) pairs, in byte order (a
 * repeat is the same key whatever the collation), and only the repeats are joined back; it
 * used to sort the joined rows, ~250 bytes each, on disk. A visit's codes are split and sorted
 * only when a submission of its VIN, date and odometer is met. The joins of the batch's rows
 * are chosen on the batch's row count: the staging analyses the rows it wrote (row-writer.ts),
 * without which a batch just staged was estimated at one row. A first part being shown while
 * the rest stages is not analysed (that would cost its first page a tenth of a second): the
 * visits and the repeats are each evaluated once (MATERIALIZED), so that a plan made for one row
 * scans their results again per row, instead of running their lookups again per row (3 s for
 * the 1,000 rows of a first part; tests/integration/import-plan-estimates.test.ts).
 */
export function statesQuery(accountId: number, batchId: number): SQL {
  return sql`
    WITH grouped AS (
      SELECT coalesce(visit_key, row_index::text) AS vk, min(row_index) AS head, count(*)::int AS lines,
        -- A line whose only fault is an empty plate takes the plate of another line of its visit.
        CASE WHEN bool_or(verdict = 'needs_data' AND plate_missing IS NOT TRUE) OR (bool_or(plate_missing) AND count(plate_hmac) = 0) THEN 'needs_data'
          WHEN bool_or(verdict = 'needs_mapping' OR (plate_missing AND unmapped IS NOT NULL)) THEN 'needs_mapping'
          ELSE 'queued' END AS vverdict,
        count(DISTINCT plate_hmac) > 1 AS disagrees,
        min(vin_hmac) AS vin_hmac, min(data_prestatie) AS data_prestatie, min(odometru_final) AS odometru_final,
        CASE WHEN count(*) = 1 THEN min(codes) ELSE string_agg(codes, ',') END AS codes
      FROM import_rows WHERE batch_id = ${batchId} AND ${inFile('')}
      GROUP BY 1
    ), visits AS MATERIALIZED (
      SELECT v.vk, v.head, v.lines, v.vverdict, v.disagrees, sr.id AS record_id, sr.status AS record_status
      FROM grouped v
      LEFT JOIN LATERAL (${recordOf(accountId, batchId, sql`v.vverdict = 'queued'`)}) sr ON true
    ), repeats AS MATERIALIZED (
      SELECT row_index, first FROM (
        SELECT row_index, first_value(row_index) OVER (PARTITION BY idem_key COLLATE "C" ORDER BY row_index) AS first
        FROM import_rows WHERE batch_id = ${batchId} AND ${inFile('')}
      ) w WHERE first <> row_index
    ), base AS (
      SELECT r.row_index, r.verdict, r.idem_key, r.codes, r.include_review, r.submission_id, r.odometru_final, r.recorded_odometru, r.recorded_data,
        coalesce(r.left_out_by, r.left_out) AS left_out, r.left_out_by IS NOT NULL AS left_out_by_hand,
        v.head AS visit_head, v.lines AS visit_lines, v.disagrees, v.vverdict,
        coalesce(k.id, l.id, v.record_id) AS existing_id, coalesce(k.status, l.status, v.record_status) AS existing_status,
        d.first AS duplicate_of,
        (v.vverdict = 'queued' AND r.odometru_final < r.recorded_odometru) AS lower
      FROM import_rows r
      LEFT JOIN visits v ON v.vk = coalesce(r.visit_key, r.row_index::text) AND ${inFile('r.')}
      LEFT JOIN repeats d ON d.row_index = r.row_index
      LEFT JOIN submissions k ON k.idempotency_key = r.idem_key AND k.scope_account_id = ${accountId}
      LEFT JOIN submissions l ON l.idempotency_key = r.legacy_key AND l.scope_account_id = ${accountId}
      WHERE r.batch_id = ${batchId}
    ), states AS (
      SELECT *, CASE
        WHEN left_out IS NOT NULL THEN 'left_out'
        WHEN existing_id IS NOT NULL THEN 'already_sent'
        WHEN duplicate_of IS NOT NULL THEN 'duplicate_in_file'
        WHEN vverdict = 'needs_data' THEN 'needs_data'
        WHEN vverdict = 'needs_mapping' THEN 'needs_mapping'
        WHEN disagrees THEN 'needs_review'
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
  /** Why the line is left out; `leftOutByHand` when the clerk left it out (the reason names who). */
  leftOut: string | null;
  leftOutByHand: boolean;
  visit: { head: number; lines: number; disagrees: boolean } | null;
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
  left_out: string | null;
  left_out_by_hand: boolean;
  visit_head: number | null;
  visit_lines: number | null;
  disagrees: boolean | null;
};

function outcome(row: OutcomeRow): RowOutcome {
  // A visit held for two plates is held before its odometer is looked at.
  const reviewed = row.lower === true && (row.state === 'ok' || (row.state === 'needs_review' && row.disagrees !== true));
  return {
    rowIndex: row.row_index,
    state: row.state,
    existing: row.existing_id === null ? null : { id: Number(row.existing_id), status: row.existing_status ?? '' },
    duplicateOf: row.duplicate_of,
    review: reviewed ? { data: row.recorded_data ?? '', odometru: Number(row.recorded_odometru), inclus: row.include_review !== 0 } : null,
    odometruFinal: row.odometru_final === null ? null : Number(row.odometru_final),
    leftOut: row.left_out,
    leftOutByHand: row.left_out_by_hand,
    visit: row.visit_head === null ? null : { head: row.visit_head, lines: row.visit_lines ?? 1, disagrees: row.disagrees === true },
  };
}

export interface BatchSummary {
  total: number;
  counts: Record<RowState, number>;
  nToCommit: number;
  /** The records a commit sends: its ready visits, one per visit whatever its lines. */
  nRecords: number;
  /** Rows that became (part of) a submission at commit. */
  nLinked: number;
  rowsHash: string;
}

const OUTCOME_COLUMNS = sql`row_index, state, existing_id, existing_status, duplicate_of, lower, include_review, recorded_odometru, recorded_data, odometru_final,
  left_out, left_out_by_hand, visit_head, visit_lines, disagrees`;

export interface PageQuery {
  filter: SQL;
  limit: number;
  offset: number;
}

/**
 * Counts per state and `rows_hash`: what the user was shown, row by row (index, state, key,
 * resolved codes, the visit of a line of several), hashed in row order, the same text as
 * domain/import-state's hasher. With `page`, that page's outcomes too, from the same evaluation
 * of the states. One pass over the states for the counts, the total and the hash.
 */
export async function batchSummary(exec: Executor, accountId: number, batchId: number, page: PageQuery | null = null): Promise<BatchSummary & { page: RowOutcome[] }> {
  const [row] = await exec.execute<Record<RowState, number> & { rows_hash: string; total: number; n_records: number; n_linked: number; page: OutcomeRow[] | null }>(sql`
    ${statesQuery(accountId, batchId)}
    SELECT count(*)::int AS total, count(DISTINCT visit_head) FILTER (WHERE state = 'ok')::int AS n_records,
      count(*) FILTER (WHERE submission_id IS NOT NULL)::int AS n_linked,
      ${sql.join(
        ROW_STATES.map((state) => sql`count(*) FILTER (WHERE state = ${state})::int AS ${sql.identifier(state)}`),
        sql`, `,
      )},
      encode(sha256(convert_to(coalesce(string_agg(row_index || E'\t' || state || E'\t' || coalesce(idem_key, '') || E'\t' || coalesce(codes, '') || CASE WHEN visit_lines > 1 THEN E'\t' || visit_head ELSE '' END || E'\n', '' ORDER BY row_index), ''), 'UTF8')), 'hex') AS rows_hash,
      ${page ? sql`(SELECT json_agg(p ORDER BY p.row_index) FROM (SELECT ${OUTCOME_COLUMNS} FROM states WHERE ${page.filter} ORDER BY row_index LIMIT ${page.limit} OFFSET ${page.offset}) p)` : sql`NULL`} AS page
    FROM states`);
  const counts = emptyCounts();
  for (const state of ROW_STATES) counts[state] = row?.[state] ?? 0;
  const nToCommit = [...COMMITTED_STATES].reduce((n, state) => n + counts[state], 0);
  return {
    total: row?.total ?? 0,
    counts,
    nToCommit,
    nRecords: row?.n_records ?? 0,
    nLinked: row?.n_linked ?? 0,
    rowsHash: row?.rows_hash ?? '',
    page: (row?.page ?? []).map(outcome),
  };
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
  // Every row is fetched: planned for all of them, not, as PostgreSQL plans a cursor by default,
  // for its first 10 %. That plan took 40-50 s for the failed rows of a 10,000-row batch, five
  // at once (bench:exports), against 2-3 s.
  await tx.execute(sql`SET LOCAL cursor_tuple_fraction = 1`);
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

/**
 * The operations a preview lists (those on most rows first): each one is answered with its
 * fuzzy suggestion, computed at every preview, and a file of distinct codes on every row had
 * tens of thousands. Once mapped, the next ones come up.
 */
export const MAX_OPERATIONS_TO_MAP = 500;

/** The workshop codes no row could resolve (left-out lines aside: a TOTAL in the code column is no code), with the first name a row gives each and how many rows have it; at most MAX_OPERATIONS_TO_MAP. */
export async function operationsToMap(exec: Executor, accountId: number, batchId: number, resolution: ResolutionContext): Promise<OperationToMap[]> {
  const rows = await exec.execute<{ code: string; denumire: string | null; rows: number }>(sql`
    SELECT e->>0 AS code, (array_agg(e->>1 ORDER BY r.row_index) FILTER (WHERE e->>1 <> ''))[1] AS denumire, count(*)::int AS rows
    FROM import_rows r, jsonb_array_elements(r.unmapped) AS e
    WHERE r.batch_id = ${batchId} AND r.unmapped IS NOT NULL AND ${inFile('r.')}
    GROUP BY 1 ORDER BY 3 DESC, 1 LIMIT ${MAX_OPERATIONS_TO_MAP}`);
  const examples = rows.length ? await accountExamples(exec, accountId) : [];
  return rows
    .map(({ code, denumire, rows: n }) => ({ codOpService: code, denumire: denumire ?? '', rows: n, suggestion: suggestFor({ code, denumire }, resolution.nomenclator, examples) }))
    .sort((a, b) => b.rows - a.rows || a.codOpService.localeCompare(b.codOpService));
}
