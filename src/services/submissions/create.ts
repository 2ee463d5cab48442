import { and, eq, sql } from 'drizzle-orm';
import { submissions } from '../../../db/schema';
import type { AppContext, Actor } from '../../context';
import { withTransaction } from '../../context';
import { idempotencyKeys } from '../../domain/idempotency';
import type { SubmissionStatus } from '../../domain/statuses';
import type { SubmissionInput } from '../../domain/submission-input';
import { contentError, readRegError, type ContentError } from '../../errors';
import { classifyForAccount } from './classify';
import { sameRecord } from './same-record';
import type { StoredRow } from './insert-batcher';
import { contentColumns, REQUEUED, verdictColumns } from './store';

/** What a post did: the submission (none when rejected outright), its state and verdict, and whether it was already there. */
export interface SubmissionOutcome {
  id: number | null;
  status: SubmissionStatus;
  erori: ContentError[];
  nemapate: string[];
  motiv: string | null;
  duplicate: boolean;
  reactivated: boolean;
}

export async function createSubmission({ ctx, actor, input, requestId }: { ctx: AppContext; actor: Actor; input: SubmissionInput; requestId: string }): Promise<SubmissionOutcome> {
  const accountId = actor.accountId;
  const verdict = await classifyForAccount({ ctx, actor, input });
  for (const hit of verdict.ruleHits) {
    ctx.journal.write({ event: 'text_rule_hit', requestId, accountId, data: { ...hit } });
  }

  if (verdict.status === 'error') {
    // Rejected by on_unmapped_error: nothing is stored.
    return { id: null, status: 'error', erori: verdict.erori, nemapate: verdict.nemapate, motiv: verdict.motiv, duplicate: false, reactivated: false };
  }

  const { content } = verdict;
  // The same record (VIN, date, odometer, set of registry codes) already queued or sent under
  // another key (the workshop's code instead of the registry's, a file's visit): never twice.
  if (verdict.status === 'queued' && typeof content.odometruFinal === 'number') {
    const twin = await sameRecord(ctx.db, accountId, {
      vin: content.vin,
      dataPrestatie: content.dataPrestatie,
      odometruFinal: content.odometruFinal,
      codes: verdict.prestatii.map((p) => p.cod_prestatie),
    });
    if (twin !== null) return asDuplicate(twin, await currentStatus(ctx, twin));
  }
  const credsEnc = input.reg_credentials ? ctx.keyring.encrypt(JSON.stringify(input.reg_credentials)) : null;
  // Both keys from one serialisation: a 14 MB photo serialised and hashed twice held the event loop twice.
  const { key, legacyKey } = idempotencyKeys(accountId, content);
  const row = await ctx.inserts.insert({
    accountId,
    ...contentColumns(content, key),
    ...verdictColumns(verdict, ctx.clock()),
    legacyKey,
    regCredsEnc: credsEnc,
    requestId,
  });
  if (row.inserted) {
    return { id: row.id, status: row.status as SubmissionStatus, erori: verdict.erori, nemapate: verdict.nemapate, motiv: verdict.motiv, duplicate: false, reactivated: false };
  }
  if (row.status === 'error') {
    const reactivated = await reactivate(ctx, accountId, row.id, credsEnc);
    if (reactivated) {
      const previous = readRegError(row.reg_error);
      const cauza = previous ? `Eroarea anterioară: ${previous.problema} ${previous.cauza}`.trim() : 'Eroarea anterioară nu a fost păstrată.';
      return {
        id: row.id,
        status: 'queued',
        erori: [contentError('REG_EROARE', 'reg_error', cauza)],
        nemapate: row.nemapate ?? [],
        motiv: 'Trimitere reactivată: înregistrarea era în eroare și a fost repusă în coadă.',
        duplicate: true,
        reactivated: true,
      };
    }
  }
  // A duplicate of a submission not in error: nothing changes; report what is stored.
  return asDuplicate(row.id, row.status === 'error' ? await currentStatus(ctx, row.id) : row);
}

/** What a duplicate answers: the stored submission `id` as it is now, unchanged. */
function asDuplicate(id: number, stored: Pick<StoredRow, 'status' | 'erori' | 'nemapate' | 'motiv'>): SubmissionOutcome {
  return {
    id,
    status: stored.status as SubmissionStatus,
    erori: stored.erori ?? [],
    nemapate: stored.nemapate ?? [],
    motiv: stored.motiv ?? null,
    duplicate: true,
    reactivated: false,
  };
}

/**
 * A duplicate of an `error` submission puts it back in the queue: compare-and-set on
 * status='error', so two concurrent duplicates reactivate it once. New credentials go to
 * the submission and the account, and the account's session epoch moves so the worker
 * drops its cached registry session.
 */
async function reactivate(ctx: AppContext, accountId: number, id: number, credsEnc: string | null): Promise<boolean> {
  return withTransaction(ctx, undefined, async (tx) => {
    const updated = await tx
      .update(submissions)
      .set({ ...REQUEUED, regCredsEnc: sql`coalesce(${credsEnc}, ${submissions.regCredsEnc})`, updatedAt: sql`now()` })
      .where(and(eq(submissions.id, id), eq(submissions.status, 'error')))
      .returning({ id: submissions.id });
    if (updated.length === 0) return false;
    await tx.execute(sql`
      UPDATE accounts SET session_epoch = session_epoch + 1, reg_creds_enc = coalesce(${credsEnc}, reg_creds_enc),
        reg_creds_set_at = CASE WHEN ${credsEnc}::text IS NULL THEN reg_creds_set_at ELSE now() END
      WHERE id = ${accountId}`);
    return true;
  });
}

async function currentStatus(ctx: AppContext, id: number) {
  const [row] = await ctx.db.execute<StoredRow>(sql`SELECT id, status, erori, nemapate, motiv FROM submissions WHERE id = ${id}`);
  if (!row) throw new Error(`submission ${id} vanished`);
  return row;
}
