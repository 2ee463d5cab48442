import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Actor, AppContext } from '../../context';
import { formatDate, formatInstant } from '../export/format';
import { CSV_BOM, csvLine } from './csv';

export const EXPORT_COLUMNS = [
  'submission_id',
  'status',
  'vin',
  'nrInm',
  'dataPrestatie',
  'odometruInitial',
  'odometruFinal',
  'coduri_prestatii',
  'registry_id',
  'motiv',
  'batch_id',
  'row_index',
  'created_at',
  'sent_at',
  'purge_after',
] as const;

export interface ExportFilters {
  status: 'sent' | 'all';
  date_from?: string;
  date_to?: string;
}

/** One row as PostgreSQL writes it (a JSON array), in EXPORT_COLUMNS' order. */
type ExportRow = [
  id: number,
  status: string,
  vin: string,
  nrInm: string,
  dataPrestatie: string,
  odometruInitial: string | null,
  odometruFinal: string | null,
  coduri: string | null,
  registryId: string | null,
  motiv: string | null,
  batchId: number | null,
  rowIndex: number | null,
  createdAt: string,
  sentAt: string | null,
  purgeAfter: string | null,
];

/**
 * Rows formatted and written in one turn of the event loop: 500 took 5-10 ms, during which
 * another account's requests waited (bench:abuse 5c, exports of 100,000 rows).
 */
const ROWS_PER_TURN = 100;
/**
 * Rows fetched from the cursor at once, then formatted ROWS_PER_TURN at a time: a fetch per
 * hundred rows was a thousand round trips to PostgreSQL per export, each a write on both sides.
 */
const ROWS_PER_FETCH = 1_000;

/**
 * The account's submissions as CSV lines (csv.ts: the form a Romanian Excel opens, formulas
 * neutralised), read through a cursor so an export of any size streams in constant memory.
 * The image is never exported; dates filter `dataPrestatie`. Dates are `dd.mm.yyyy`, instants
 * Bucharest time.
 */
export async function* exportSubmissionsCsv({ ctx, actor, filters }: { ctx: AppContext; actor: Actor; filters: ExportFilters }): AsyncGenerator<string> {
  const { accountId } = actor;
  const { sql } = ctx;
  yield CSV_BOM + csvLine(EXPORT_COLUMNS);
  // Each row is one text, parsed only as it is formatted: a fetched batch waits over several
  // turns, and as rows of fifteen values it held fifteen objects a row, which every collection
  // of the young generation copied meanwhile.
  const cursor = sql<{ r: string }[]>`
    SELECT json_build_array(s.id, s.status, s.vin, s.nr_inm, s.data_prestatie,
      s.payload_json->>'odometruInitial', s.payload_json->>'odometruFinal',
      (SELECT string_agg(p->>'cod_prestatie', ';') FROM jsonb_array_elements(coalesce(s.prestatii, '[]'::jsonb)) p),
      s.registry_id, s.motiv, s.batch_id, s.row_index, s.created_at, s.sent_at, s.purge_after)::text AS r
    FROM submissions s
    WHERE s.scope_account_id = ${accountId}
      ${filters.status === 'sent' ? sql`AND s.status = 'sent'` : sql``}
      ${filters.date_from ? sql`AND s.data_prestatie >= ${filters.date_from}` : sql``}
      ${filters.date_to ? sql`AND s.data_prestatie <= ${filters.date_to}` : sql``}
    ORDER BY s.id`.cursor(ROWS_PER_FETCH);
  for await (const fetched of cursor) {
    for (let at = 0; at < fetched.length; at += ROWS_PER_TURN) {
      if (at > 0) await nextTurn();
      yield csvRows(fetched.slice(at, at + ROWS_PER_TURN));
    }
  }
}

function csvRows(rows: Array<{ r: string }>): string {
  return rows.map(({ r }) => csvLine(shown(JSON.parse(r) as ExportRow))).join('');
}

/** A row's values as the file shows them: days `dd.mm.yyyy`, instants in Bucharest time. */
function shown(row: ExportRow) {
  const [id, status, vin, nrInm, dataPrestatie, odometruInitial, odometruFinal, coduri, registryId, motiv, batchId, rowIndex, createdAt, sentAt, purgeAfter] = row;
  return [
    id,
    status,
    vin,
    nrInm,
    formatDate(dataPrestatie),
    odometruInitial,
    odometruFinal,
    coduri,
    registryId,
    motiv,
    batchId,
    rowIndex,
    formatInstant(createdAt),
    formatInstant(sentAt),
    formatInstant(purgeAfter),
  ];
}
