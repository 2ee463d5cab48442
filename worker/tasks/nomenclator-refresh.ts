import type { WorkerContext } from '../context';
import { refreshNomenclator } from '../nomenclator';

/**
 * The daily nomenclator refresh, with any live registry session of this worker. Without one
 * there is nothing to do: the next first login of an account refreshes it anyway.
 */
export async function nomenclatorRefresh(ctx: WorkerContext): Promise<number | null> {
  const session = ctx.sessions.any();
  if (!session) return null;
  return refreshNomenclator(ctx, session.token);
}
