import { and, eq, inArray, ne } from 'drizzle-orm';
import { submissions } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { withTransaction } from '../../context';
import { canonicalize, type CanonicalContent } from '../../domain/canonical';
import { classifyContent } from '../../domain/classify';
import { idempotencyKeys } from '../../domain/idempotency';
import { allowsCorrection } from '../../domain/statuses';
import { readRecordFields } from '../../domain/import-row';
import { journalActor } from '../../journal/actor';
import type { CorrectionInput, PrestatieInput } from '../../domain/submission-input';
import { ConflictError } from '../../errors';
import { sqlState } from '../../journal/describe-error';
import { loadResolutionContext } from '../operations/context';
import { lockInScope } from './lifecycle';
import { contentColumns, DELIVERY_RESET, updateSubmissions, verdictColumns } from './store';

/**
 * Corrects a submission's fields (its operations stay as sent) when domain/statuses.ts
 * allowsCorrection: `needs_data`, or an error whose content the registry refused. It is
 * classified again: valid, it is queued (or waits for a mapping) with its delivery state
 * reset like a requeue; still invalid, it stays `needs_data` with the new errors. Corrected content that another
 * submission of the account already has is refused (409, naming it) rather than stored twice.
 */
export async function correctSubmission({ ctx, id, changes, requestId, actor }: { ctx: AppContext; id: number; changes: CorrectionInput; requestId: string; actor: Actor }) {
  const { accountId } = actor;
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
    // The fields the clerk typed are read as the import reads a file's (87.400 is 87400 km), then
    // canonicalised as a post's are; its operations (canonical items, each with one code: a
    // PrestatieInput canonicalised again unchanged) stay as sent.
    const content = canonicalize({
      ...readRecordFields(changes),
      prestatii: before.prestatii as PrestatieInput[],
      b64Image: before.b64Image,
    });
    const now = ctx.clock();
    const verdict = classifyContent(content, await loadResolutionContext(ctx, tx, accountId, content.prestatii), { rejectUnmapped: false, now });
    const { key, legacyKey } = idempotencyKeys(accountId, content);
    const [twin] = await tx
      .select({ id: submissions.id })
      .from(submissions)
      .where(and(inArray(submissions.idempotencyKey, [key, legacyKey]), eq(submissions.scopeAccountId, accountId), ne(submissions.id, id)));
    if (twin) throw new ConflictError(`Datele corectate sunt ale trimiterii #${twin.id}, care există deja; ștergeți trimiterea aceasta dacă este un duplicat.`);
    const columns = verdictColumns(verdict, now);
    await updateSubmissions(tx, [id], {
      ...contentColumns(content, key),
      ...columns,
      // A corrected error starts its delivery again: its registry answer was about the old content.
      ...(row.status === 'error' ? DELIVERY_RESET : {}),
    });
    const { status } = columns;
    return { status, from: row.status, erori: verdict.erori };
  });
}
