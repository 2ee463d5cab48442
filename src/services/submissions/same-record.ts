import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';

// What a record is, for "never sent twice": the registry keeps a service by its VIN, date, final
// odometer and set of registry codes, whatever idempotency key the gateway stored it under.

/** A list of codes, sorted and each once, as text: how two records' codes are compared. */
export const sortedCodes = (list: SQL) => sql`(SELECT string_agg(DISTINCT c, ',' ORDER BY c) FROM ${list} AS c)`;

/** A submission's resolved registry codes (its `prestatii` column), sorted and each once, as the records are compared. */
export const submissionCodes = (prestatii: SQL) => sortedCodes(sql`jsonb_array_elements_text(jsonb_path_query_array(coalesce(${prestatii}, '[]'::jsonb), '$[*].cod_prestatie'))`);

/** A submission's final odometer as a record compares it (null when the payload holds no number). */
export const recordOdometer = (payload: SQL) => sql`CASE WHEN jsonb_typeof(${payload}->'odometruFinal') = 'number' THEN (${payload}->>'odometruFinal')::float8 END`;

/** Statuses of a submission whose record the registry has or will have: an equal record is never sent again. */
export const RECORD_STATUSES = sql`('queued', 'sending', 'sent')`;

/**
 * The account's queued or sent submission with the same record as `content` resolved to `codes`
 * (VIN, date, final odometer, set of registry codes), whatever its key: the same service posted
 * as `OE-3` and as the workshop's code mapped to OE-3, or as a file's visit, is one record.
 */
export async function sameRecord(exec: Executor, accountId: number, record: { vin: string; dataPrestatie: string; odometruFinal: number; codes: readonly string[] }) {
  const codes = JSON.stringify(record.codes);
  const [row] = await exec.execute<{ id: string }>(sql`
    SELECT id::text FROM submissions
    WHERE scope_account_id = ${accountId} AND vin = ${record.vin} AND data_prestatie = ${record.dataPrestatie} AND status IN ${RECORD_STATUSES}
      AND ${recordOdometer(sql`payload_json`)} = ${record.odometruFinal}
      AND ${submissionCodes(sql`prestatii`)} = ${sortedCodes(sql`jsonb_array_elements_text(${codes}::jsonb)`)}
    ORDER BY id LIMIT 1`);
  return row ? Number(row.id) : null;
}
