import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { submissions } from '../../../db/schema';
import type { AppContext } from '../../context';
import { withTransaction } from '../../context';
import { canonicalOdometer, type CanonicalContent } from '../../domain/canonical';
import { classifyContent } from '../../domain/classify';
import { idempotencyKeys } from '../../domain/idempotency';
import { allowsCorrection } from '../../domain/statuses';
import { parseTypedDate } from '../../domain/dates';
import { journalActor } from '../../journal/actor';
import type { Actor } from '../../context';
import type { CorrectionInput } from '../../domain/submission-input';
import { ConflictError } from '../../errors';
import { sqlState } from '../../journal/describe-error';
import { loadResolutionContext } from '../operations/context';
import { lockInScope } from './lifecycle';
import { purgeAfterFor } from './retention';

/**
 * Corrects a submission's fields (its operations stay as sent) when domain/statuses.ts
 * allowsCorrection: `needs_data`, or an error whose content the registry refused. It is
 * classified again: valid, it is queued (or waits for a mapping) with its delivery state
 * reset like a requeue; still invalid, it stays `needs_data` with the new errors. Corrected content that another
 * submission of the account already has is refused (409, naming it) rather than stored twice.
 */
export async function correctSubmission({
  ctx,
  accountId,
  id,
  changes,
  requestId,
  actor,
}: {
  ctx: AppContext;
  accountId: number;
  id: number;
  changes: CorrectionInput;
  requestId: string;
  actor?: Actor;
}) {
  const result = await store(ctx, accountId, id, changes).catch((error: unknown) => {
    // Another request stored the same content between our check and our write.
    if (sqlState(error) === '23505') throw new ConflictError('Datele corectate sunt ale unei trimiteri care tocmai a fost primită; reîncărcați lista.');
    throw error;
  });
  ctx.journal.write({ event: 'submission_corrected', requestId, accountId, submissionId: id, data: { from: result.from, to: result.status, ...journalActor(actor) } });
  return result;
}

function store(ctx: AppContext, accountId: number, id: number, changes: CorrectionInput) {
  return withTransaction(ctx, undefined, async (tx) => {
    const row = await lockInScope(tx, accountId, id);
    if (!allowsCorrection(row))
      throw new ConflictError('Doar o trimitere cu date de completat (sau refuzată de registru pentru conținut) se corectează; starea ei s-a schimbat între timp.');
    const before = row.payload as CanonicalContent;
    const content: CanonicalContent = {
      ...before,
      vin: changes.vin.trim().toUpperCase(),
      nrInm: changes.nrInm.trim().toUpperCase(),
      dataPrestatie: parseTypedDate(changes.dataPrestatie) ?? changes.dataPrestatie.trim(),
      odometruInitial: canonicalOdometer(changes.odometruInitial),
      odometruFinal: canonicalOdometer(changes.odometruFinal),
    };
    const now = ctx.clock();
    const verdict = classifyContent(content, await loadResolutionContext(ctx, tx, accountId, content.prestatii), { rejectUnmapped: false, now });
    const status = verdict.status === 'error' ? 'needs_mapping' : verdict.status;
    const { key, legacyKey } = idempotencyKeys(accountId, content);
    const [twin] = await tx
      .select({ id: submissions.id })
      .from(submissions)
      .where(and(inArray(submissions.idempotencyKey, [key, legacyKey]), eq(submissions.scopeAccountId, accountId), ne(submissions.id, id)));
    if (twin) throw new ConflictError(`Datele corectate sunt ale trimiterii #${twin.id}, care există deja; ștergeți trimiterea aceasta dacă este un duplicat.`);
    await tx
      .update(submissions)
      .set({
        payloadJson: content,
        vin: content.vin,
        nrInm: content.nrInm,
        dataPrestatie: content.dataPrestatie,
        idempotencyKey: key,
        status,
        prestatii: verdict.prestatii,
        erori: verdict.erori,
        nemapate: verdict.nemapate,
        motiv: verdict.motiv,
        purgeAfter: purgeAfterFor(status, now),
        // A corrected error starts its delivery again: its registry answer was about the old content.
        ...(row.status === 'error' ? { regError: null, attempts: 0, nextAttemptAt: null, workerId: null } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(submissions.id, id));
    return { status, from: row.status, erori: verdict.erori };
  });
}
