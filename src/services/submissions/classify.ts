import { eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { accounts } from '../../../db/schema';
import type { AppContext } from '../../context';
import { canonicalize } from '../../domain/canonical';
import { classifyContent, type Classification } from '../../domain/classify';
import type { SubmissionInput } from '../../domain/submission-input';
import { loadResolutionContext } from '../operations/context';

export async function accountRejectsUnmapped(exec: Executor, accountId: number): Promise<boolean> {
  const [row] = await exec
    .select({ value: accounts.onUnmappedErrorDefault })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return (row?.value ?? 0) !== 0;
}

/**
 * The verdict for a payload, exactly as POST /v1/prezentari reaches it. The dry run is this
 * call and nothing else, so the two cannot diverge.
 */
export async function classifyForAccount({
  ctx,
  exec,
  accountId,
  input,
}: {
  ctx: AppContext;
  exec: Executor;
  accountId: number;
  input: SubmissionInput;
}): Promise<Classification> {
  const content = canonicalize(input);
  const rejectUnmapped = input.on_unmapped_error ?? (await accountRejectsUnmapped(exec, accountId));
  const resolution = await loadResolutionContext(ctx, exec, accountId, content.prestatii);
  return classifyContent(content, resolution, { rejectUnmapped, now: ctx.clock() });
}
