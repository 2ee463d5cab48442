import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { AppContext } from '../../context';
import type { CanonicalContent } from '../../domain/canonical';
import { classifyContent } from '../../domain/classify';
import { rewriteVerdicts, storedStatus, verdictColumns } from '../submissions/store';
import { loadResolutionContext } from './context';

export interface ReResolution {
  queued: number;
  needs_data: number;
  needs_mapping: number;
}

/**
 * Classifies the account's `needs_mapping` submissions again with its current mappings and
 * rules, inside the caller's transaction (the one that saved the mapping). `batchId` narrows
 * it to one import batch.
 */
export async function reResolveHeld(ctx: AppContext, tx: Executor, accountId: number, options: { batchId?: number } = {}): Promise<ReResolution> {
  const rows = await tx.execute<{ id: number; payload_json: CanonicalContent; request_id: string | null }>(sql`
    SELECT id, payload_json, request_id FROM submissions
    WHERE scope_account_id = ${accountId} AND status = 'needs_mapping'
      ${options.batchId === undefined ? sql`` : sql`AND batch_id = ${options.batchId}`}
    -- Locked in id order, as every other multi-row lock of submissions: two saves of one
    -- account then queue behind each other instead of deadlocking.
    ORDER BY id
    FOR UPDATE`);
  const counts: ReResolution = { queued: 0, needs_data: 0, needs_mapping: 0 };
  if (rows.length === 0) return counts;

  const resolution = await loadResolutionContext(ctx, tx, accountId, 'all');
  const now = ctx.clock();
  const updates = rows.map((row) => {
    const verdict = classifyContent(row.payload_json, resolution, { rejectUnmapped: false, now });
    const status = storedStatus(verdict.status);
    counts[status] += 1;
    for (const hit of verdict.ruleHits) {
      ctx.journal.write({ event: 'text_rule_hit', requestId: row.request_id, accountId, submissionId: Number(row.id), data: { ...hit } });
    }
    return { id: Number(row.id), ...verdictColumns(verdict, now, status) };
  });
  await rewriteVerdicts(tx, updates);
  return counts;
}
