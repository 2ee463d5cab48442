import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { RECORD_STATUSES, sortedCodes, submissionCodes } from '../submissions/same-record';
import type { VinHasher } from './readings';

/**
 * The same service may reach the gateway twice under two idempotency keys: once through the
 * API as `{cod_prestatie: "OE-3"}`, once in a file as the workshop's code mapped to OE-3. The
 * keys differ, the registry would still receive it twice. So a row is also compared by its
 * resolved record (VIN, date, final odometer, set of registry codes) with the account's sent
 * submissions. The rows hold the VIN only as the batch's HMAC, so the link VIN → submission is
 * written here once per batch (and for each newer submission); dates, odometers, codes and
 * statuses are compared as they are when the preview runs.
 */

interface VinSubmission {
  vin: string;
  id: string;
}

/** The account's submissions of these VINs (one query for a whole batch). */
export async function submissionsForVins(exec: Executor, accountId: number, vins: readonly string[]): Promise<VinSubmission[]> {
  if (vins.length === 0) return [];
  return exec.execute<VinSubmission & Record<string, unknown>>(sql`
    SELECT vin, id::text AS id FROM submissions
    WHERE scope_account_id = ${accountId} AND vin IN (SELECT jsonb_array_elements_text(${JSON.stringify(vins)}::jsonb))`);
}

/** The account's submissions stored after `afterId` (the same watermark as the readings'). */
export async function submissionsSince(exec: Executor, accountId: number, afterId: number): Promise<VinSubmission[]> {
  return exec.execute<VinSubmission & Record<string, unknown>>(sql`
    SELECT vin, id::text AS id FROM submissions WHERE scope_account_id = ${accountId} AND id > ${afterId}`);
}

/** Links the submissions to the batch by the VIN's HMAC (only VINs some row of the batch has). */
export async function linkVinSubmissions(exec: Executor, hasher: VinHasher, batchId: number, found: readonly VinSubmission[]): Promise<void> {
  if (found.length === 0) return;
  const links = found.map((s) => ({ h: hasher(s.vin), id: s.id }));
  await exec.execute(sql`
    INSERT INTO import_batch_vin_submissions (batch_id, vin_hmac, submission_id)
    SELECT DISTINCT ${batchId}::int, v.h, v.id::bigint FROM jsonb_to_recordset(${JSON.stringify(links)}::jsonb) AS v(h text, id text)
    WHERE EXISTS (SELECT 1 FROM import_rows r WHERE r.batch_id = ${batchId} AND r.vin_hmac = v.h)
    ON CONFLICT DO NOTHING`);
}

/** A batch's VIN key changed: the links under the old one can never match again. */
export async function clearVinSubmissions(exec: Executor, batchId: number): Promise<void> {
  await exec.execute(sql`DELETE FROM import_batch_vin_submissions WHERE batch_id = ${batchId}`);
}

/**
 * For the states query: per (VIN HMAC, date, final odometer, sorted codes), the first queued or
 * sent submission of the account with that resolved record (one waiting to be sent will be). Joined to the rows on the first three
 * (a hash join over the batch), the codes compared only for the rows that meet one.
 */
export function sentRecords(accountId: number, batchId: number): SQL {
  return sql`
    SELECT DISTINCT ON (1, 2, 3, 4) v.vin_hmac, s.data_prestatie, (s.payload_json->>'odometruFinal')::float8 AS odometru_final,
      ${submissionCodes(sql`s.prestatii`)} AS codes,
      s.id, s.status
    FROM import_batch_vin_submissions v JOIN submissions s ON s.id = v.submission_id
    WHERE v.batch_id = ${batchId} AND s.scope_account_id = ${accountId} AND s.status IN ${RECORD_STATUSES}
      AND jsonb_typeof(s.payload_json->'odometruFinal') = 'number'
    ORDER BY 1, 2, 3, 4, s.id`;
}

/** The row's resolved codes as `sentRecords` sorts them. */
export const rowSortedCodes = (codes: SQL) => sortedCodes(sql`unnest(string_to_array(${codes}, ','))`);
