import type { Context } from 'hono';
import type { AppContext } from '../../context';
import { AppError } from '../../errors';
import { mappingHistory } from '../../services/operations/mapping-history';
import { listMappings, pendingOperations } from '../../services/operations/mappings';
import { listTextRules } from '../../services/operations/text-rules';
import { costlyWeb } from '../trimiteri/costly';
import type { WebEnv } from '../env';
import { answerRefused } from '../notice';
import { type EditorNotice, MappingEditor } from './editor';

/** The editor as the account's data stands now, with a notice and a clerk's picks to keep. */
export async function editor(c: Context<WebEnv>, ctx: AppContext, notice?: EditorNotice, chosen?: ReadonlyMap<string, string>) {
  const actor = c.get('actor');
  const [pending, saved, rules, nomenclator] = await Promise.all([
    pendingOperations({ ctx, actor }),
    listMappings({ ctx, actor }),
    listTextRules({ ctx, actor }),
    ctx.nomenclator.get(ctx.db),
  ]);
  const history = await mappingHistory({ ctx, actor, codes: saved.map((m) => m.codOpService) });
  return <MappingEditor pending={pending} saved={saved} history={history} rules={rules} nomenclator={nomenclator} notice={notice} chosen={chosen} />;
}

/** A service's refusal (an unknown code, a missing mapping or rule) as the editor's notice. */
export function refusal(error: unknown): Extract<EditorNotice, { kind: 'error' }> {
  if (error instanceof AppError && error.cod === 'CERERE_INVALIDA')
    return { kind: 'error', cod: 'FORMULAR_INVALID', cauza: 'Codul ales nu există în nomenclatorul registrului; alegeți unul din listă.' };
  if (error instanceof AppError && error.cod === 'NEGASIT')
    return { kind: 'error', cod: 'NEGASIT', cauza: 'Nu mai există (a fost ștearsă între timp sau nu este a contului dvs.).' };
  throw error;
}

export const invalid = (cauza: string): EditorNotice => ({ kind: 'error', cod: 'FORMULAR_INVALID', cauza });

/**
 * A save that re-classifies held rows is costly work of the account (http/cost-budget.ts): past
 * the budget the editor comes back with the refusal in it, nothing saved.
 */
export const costlySave = (ctx: AppContext) => costlyWeb(ctx, { refuse: async (c, cod, cauza) => answerRefused(c, await editor(c, ctx, { kind: 'error', cod, cauza }), cod) });
