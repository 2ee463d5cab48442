import { z } from 'zod';
import type { Actor, AppContext } from '../../context';
import { ROW_STATES } from '../../domain/import-state';
import { INT4_MAX } from '../../routes/params';
import { batchSubmissionStatuses, previewImportBatch, columnSamples, rowSubmissionStatuses } from '../../services/import';
import type { NoticeProps } from '../notice';

/** Rows per preview page: enough to scan, few enough that every cell can be an input. */
export const PAGE_SIZE = 50;
/** The held rows listed one by one in "De rezolvat" (the rest are a filter away). */
const REVIEW_LISTED = 20;

/** What the batch's screen shows of its preview: a state (the chips) and a keyset page (`dupa`: after this row). */
export const ImportView = z.object({
  stare: z.enum(ROW_STATES).optional(),
  dupa: z.coerce.number().int().min(0).max(INT4_MAX).optional(),
});
export type ImportView = z.infer<typeof ImportView>;

export const viewQuery = (view: ImportView) => {
  const params = new URLSearchParams();
  if (view.stare) params.set('stare', view.stare);
  if (view.dupa !== undefined) params.set('dupa', String(view.dupa));
  const text = params.toString();
  return text ? `?${text}` : '';
};

/** The view of the page an action was sent from (htmx's HX-Current-URL), so that its answer keeps the filter and the page. */
export function viewFrom(currentUrl: string | undefined): ImportView {
  if (!currentUrl) return {};
  try {
    const parsed = ImportView.safeParse(Object.fromEntries(new URL(currentUrl).searchParams));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/**
 * Everything the batch's screen shows, from the import services: the preview (counts,
 * operations to map, a page), the column samples, the held rows to include one by one, the
 * registry's codes when a code waits for a mapping, and once committed how its submissions
 * stand, all of them and each of the page's rows (`rowSubmissions`, by submission id).
 * Another account's batch is the preview's NotFoundError.
 */
export async function loadScreen(ctx: AppContext, actor: Actor, batchId: number, view: ImportView, notice?: NoticeProps) {
  const preview = await previewImportBatch({ ctx, actor, batchId, query: { page: 1, page_size: PAGE_SIZE, state: view.stare, after: view.dupa } });
  const { batch, summary, operationsToMap } = preview;
  const committed = batch.status === 'committed';
  const submissionIds = preview.rows.flatMap((r) => (r.submissionId === null ? [] : [r.submissionId]));
  const [samples, nomenclator, review, followed, rowSubmissions] = await Promise.all([
    columnSamples({ ctx, actor, batchId }),
    operationsToMap.length > 0 ? ctx.nomenclator.get(ctx.db) : Promise.resolve(new Map<string, string>()),
    batch.status === 'staged' && summary.counts.needs_review > 0
      ? previewImportBatch({ ctx, actor, batchId, query: { page: 1, page_size: REVIEW_LISTED, state: 'needs_review' } }).then((p) => p.rows)
      : Promise.resolve([]),
    committed ? batchSubmissionStatuses({ ctx, actor, batchId }) : Promise.resolve(null),
    committed ? rowSubmissionStatuses({ ctx, actor, batchId, ids: submissionIds }) : Promise.resolve(null),
  ]);
  return { batch, view, preview, samples, nomenclator, review, followed, rowSubmissions, notice };
}
export type ScreenData = Awaited<ReturnType<typeof loadScreen>>;
