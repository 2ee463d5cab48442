import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import { inAccount } from '../../../db/account-scope';
import { submissions } from '../../../db/schema';
import type { AppContext } from '../../context';
import { withTransaction } from '../../context';
import { canonicalOdometer, type CanonicalContent } from '../../domain/canonical';
import { classifyContent } from '../../domain/classify';
import { idempotencyKeys } from '../../domain/idempotency';
import { allows } from '../../domain/statuses';
import type { CorrectionInput } from '../../domain/submission-input';
import { ConflictError } from '../../errors';
import { sqlState } from '../../journal/describe-error';
import { loadResolutionContext } from '../operations/context';
import { lockInScope } from './lifecycle';
import { purgeAfterFor } from './retention';

/**
 * Corrects a `needs_data` submission's fields (its operations stay as sent) and classifies it again: valid, it is queued (or waits
 * for a mapping); still invalid, it stays with the new errors. Corrected content that another
 * submission of the account already has is refused (409, naming it) rather than stored twice.
 */
export async function correctSubmission({
  ctx,
  accountId,
  id,
  changes,
  requestId,
}: {
  ctx: AppContext;
  accountId: number;
  id: number;
  changes: CorrectionInput;
  requestId: string;
}) {
  const result = await store(ctx, accountId, id, changes).catch((error: unknown) => {
    // Another request stored the same content between our check and our write.
    if (sqlState(error) === '23505') throw new ConflictError('Datele corectate sunt ale unei trimiteri care tocmai a fost primită; reîncărcați lista.');
    throw error;
  });
  ctx.journal.write({ event: 'submission_corrected', requestId, accountId, submissionId: id, data: { to: result.status } });
  return result;
}

function store(ctx: AppContext, accountId: number, id: number, changes: CorrectionInput) {
  return withTransaction(ctx, undefined, async (tx) => {
    const row = await lockInScope(tx, accountId, id);
    if (!allows(row.status, 'correct')) throw new ConflictError('Doar o trimitere cu date de completat se corectează; starea ei s-a schimbat între timp.');
    const before = row.payload as CanonicalContent;
    const content: CanonicalContent = {
      ...before,
      vin: changes.vin.trim().toUpperCase(),
      nrInm: changes.nrInm.trim().toUpperCase(),
      dataPrestatie: changes.dataPrestatie.trim(),
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
      .where(and(inArray(submissions.idempotencyKey, [key, legacyKey]), inAccount(accountId, submissions.accountId), ne(submissions.id, id)));
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
        updatedAt: sql`now()`,
      })
      .where(eq(submissions.id, id));
    return { status, erori: verdict.erori };
  });
}
