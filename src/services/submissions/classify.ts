import { eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { accounts } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { canonicalize } from '../../domain/canonical';
import { classifyContent, type Classification } from '../../domain/classify';
import type { SubmissionInput } from '../../domain/submission-input';
import { loadResolutionContext } from '../operations/context';

export async function accountRejectsUnmapped(exec: Executor, accountId: number): Promise<boolean> {
  const [row] = await exec.select({ value: accounts.onUnmappedErrorDefault }).from(accounts).where(eq(accounts.id, accountId));
  return (row?.value ?? 0) !== 0;
}

/**
 * The verdict for a payload, exactly as POST /v1/prezentari reaches it. The dry run is this
 * call and nothing else, so the two cannot diverge.
 */
export async function classifyForAccount({
  ctx,
  actor,
  input,
  exec = ctx.db,
}: {
  ctx: AppContext;
  actor: Actor;
  input: SubmissionInput;
  exec?: Executor;
}): Promise<Classification> {
  const { accountId } = actor;
  const content = canonicalize(input);
  const resolution = await loadResolutionContext(ctx, exec, accountId, content.prestatii);
  const now = ctx.clock();
  const verdict = classifyContent(content, resolution, { rejectUnmapped: input.on_unmapped_error ?? false, now });
  // The account's default matters only when a code is unmapped and the request left it open.
  if (verdict.nemapate.length === 0 || input.on_unmapped_error != null) return verdict;
  if (!(await accountRejectsUnmapped(exec, accountId))) return verdict;
  return classifyContent(content, resolution, { rejectUnmapped: true, now });
}
