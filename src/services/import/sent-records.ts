import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { RECORD_STATUSES, recordOdometer, sortedCodes, submissionCodes } from '../submissions/same-record';
import { submissionsOfVins, type VinHasher } from './readings';

/**
 * The same service may reach the gateway twice under two idempotency keys: once through the
 * API as `{cod_prestatie: "OE-3"}`, once in a file as the workshop's code mapped to OE-3. The
 * keys differ, the registry would still receive it twice. So a row is also compared by its
 * resolved record (VIN, date, final odometer, set of registry codes) with the account's queued
 * and sent submissions. The rows hold the VIN only as the batch's HMAC, so the link VIN → submission is
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
    SELECT s.vin, s.id::text AS id FROM ${submissionsOfVins(accountId, vins)}`);
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
 * For the states query, LATERAL to each visit `v` (its VIN HMAC, date, final odometer and codes):
 * the first queued or sent submission of the account with the visit's resolved record, or none;
 * not looked for at all unless `onlyIf` (a condition on the visit, evaluated before anything is
 * read). Looked up per visit through the links' primary key (batch, VIN HMAC), so the plan does
 * not depend on how many rows the planner believes the batch has: a batch staged moments ago is
 * not in the table's statistics yet, and its rows were estimated at one, which made a join
 * against a subquery of the whole batch run it again for every row (minutes for 20,000 rows).
 * Each submission is read by its id alone (OFFSET 0 keeps the other conditions out of that
 * scan): statistics taken before a commit know no sent submissions, and the account's were then
 * scanned by status for every row.
 */
export function recordOf(accountId: number, batchId: number, onlyIf: SQL): SQL {
  return sql`
    SELECT s.id, s.status FROM import_batch_vin_submissions l
    CROSS JOIN LATERAL (SELECT id, status, scope_account_id, data_prestatie, payload_json, prestatii FROM submissions WHERE id = l.submission_id OFFSET 0) s
    WHERE ${onlyIf} AND l.batch_id = ${batchId} AND l.vin_hmac = v.vin_hmac
      AND s.scope_account_id = ${accountId} AND s.status IN ${RECORD_STATUSES} AND s.data_prestatie = v.data_prestatie
      AND ${recordOdometer(sql`s.payload_json`)} = v.odometru_final
      AND (${submissionCodes(sql`s.prestatii`)} = ${sortedCodes(sql`unnest(string_to_array(v.codes, ','))`)}) IS TRUE
    ORDER BY s.id LIMIT 1`;
}
