import type { AppContext } from '../../context';
import { parseActorLabel } from '../../journal/actor';
import { actorWords, nameActors } from '../journal/actors';
import type { RowOutcome } from './states';

/**
 * The rows the clerk left out by hand carry who did it as a label (`utilizator:12`); the preview
 * and the export name them in words: "Lăsat deoparte de ana@service.ro". One query for a page.
 */
export async function nameLeftOut(ctx: AppContext, accountId: number, outcomes: RowOutcome[]): Promise<RowOutcome[]> {
  const byHand = outcomes.filter((o) => o.leftOutByHand);
  if (byHand.length === 0) return outcomes;
  const name = await nameActors({ ctx, accountId, refs: byHand.map((o) => parseActorLabel(o.leftOut)) });
  return outcomes.map((o) => {
    if (!o.leftOutByHand) return o;
    return { ...o, leftOut: `Lăsat deoparte ${actorWords(name(parseActorLabel(o.leftOut))) || 'de cineva care nu mai există'}.` };
  });
}
