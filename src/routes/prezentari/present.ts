import type { SubmissionOutcome } from '../../services/submissions/create';
import type { SubmissionPage, SubmissionRecord } from '../../services/submissions/read';
import { storedStatus } from '../../services/submissions/store';
import type { DryRunResult, SubmissionPageView, SubmissionResult, SubmissionView } from './schemas';
import type { Classification } from '../../domain/classify';

/** A submission as `/v1/prezentari` writes it: the spec's field names, ISO timestamps. */
export function presentSubmission(record: SubmissionRecord): SubmissionView {
  return {
    submission_id: record.id,
    status: record.status,
    vin: record.vin,
    nrInm: record.nrInm,
    dataPrestatie: record.dataPrestatie,
    prestatii: record.prestatii,
    motiv: record.motiv,
    nemapate: record.nemapate,
    erori: record.erori,
    reg_error: record.regError,
    registry_id: record.registryId,
    attempts: record.attempts,
    batch_id: record.batchId,
    row_index: record.rowIndex,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
    sent_at: record.sentAt?.toISOString() ?? null,
    purge_after: record.purgeAfter?.toISOString() ?? null,
  };
}

/** The answer to `POST /v1/prezentari`. */
export const presentOutcome = ({ id, ...rest }: SubmissionOutcome): SubmissionResult => ({ submission_id: id, ...rest });

/** The answer to the dry run: a payload the real POST would reject outright is estimated as needs_mapping. */
export function presentDryRun(verdict: Pick<Classification, 'status' | 'erori' | 'nemapate' | 'motiv' | 'prestatii'>): DryRunResult {
  return {
    status_estimat: storedStatus(verdict.status),
    respins: verdict.status === 'error',
    erori: verdict.erori,
    nemapate: verdict.nemapate,
    motiv: verdict.motiv,
    prestatii: verdict.prestatii,
  };
}

/**
 * A page as its JSON text (a SubmissionPageView), made of `parts` read one after the other:
 * each part's items are presented and stringified when it is read, in a turn of its own, so a
 * page of 500 is never one piece of work of the event loop.
 */
export async function pageJson(parts: AsyncIterable<SubmissionPage>): Promise<string> {
  const items: string[] = [];
  let nextAfter: number | null = null;
  for await (const part of parts) {
    if (part.items.length > 0) items.push(JSON.stringify(part.items.map(presentSubmission)).slice(1, -1));
    nextAfter = part.nextAfter;
  }
  const page: SubmissionPageView = { items: [], next_cursor: nextAfter === null ? null : encodeCursor(nextAfter) };
  // The items, already stringified part by part, go in the empty list (by a function: a string would read their `$&` as a pattern).
  return JSON.stringify(page).replace('"items":[]', () => `"items":[${items.join(',')}]`);
}

/** The API's opaque cursor: the last id of the previous page. */
export function encodeCursor(id: number): string {
  return Buffer.from(`s:${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): number | undefined {
  const match = /^s:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}
