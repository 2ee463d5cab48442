import { answerRefused } from '../notice';
import { Hono } from 'hono';
import type { AppContext } from '../../context';
import { ConflictError } from '../../errors';
import { pendingOperations, saveMappings } from '../../services/operations/mappings';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { type ConfirmPair, SaveAllConfirmation } from './confirm';
import type { EditorNotice } from './editor';
import { readPairs, requeuedText, seriousRefusal, unconfirmedSerious } from './form';
import { costlySave, editor, invalid } from './screen';

/**
 * Save-all in two steps. The first post carries every row's current choice, as the page showed
 * it; the answer lists the pairs with the held submissions each will send. The second post
 * (`confirmat`) carries the same pairs with the counts shown, and saves them only if every code
 * still waits with the same count; else the list is shown again, marked, and nothing is saved.
 */
export function saveAllRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();

  app.post('/mapari/sugestii', costlySave(ctx), async (c) => {
    const actor = c.get('actor');
    const fields = await readForm(c);
    const pairs = readPairs(fields);
    if (!pairs) return answerRefused(c, await editor(c, ctx, invalid('Lista de coduri trimisă nu este validă; reîncărcați pagina și alegeți din nou.')), 'FORMULAR_INVALID');
    if (pairs.length === 0) return answerRefused(c, await editor(c, ctx, invalid('Niciun cod ales: alegeți codul registrului pe rândurile de salvat.')), 'FORMULAR_INVALID');
    const [pending, nomenclator] = await Promise.all([pendingOperations({ ctx, actor }), ctx.nomenclator.get(ctx.db)]);
    const unknown = pairs.find((p) => !nomenclator.has(p.cod_prestatie));
    if (unknown) return answerRefused(c, await editor(c, ctx, invalid('Un cod ales nu există în nomenclatorul registrului; alegeți unul din listă.')), 'FORMULAR_INVALID');

    const waiting = new Map(pending.map((op) => [op.codOpService, op.submissions]));
    const shown: ConfirmPair[] = pairs.map((p) => ({
      codOpService: p.cod_op_service,
      codPrestatie: p.cod_prestatie,
      denumire: nomenclator.get(p.cod_prestatie) ?? '',
      submissions: waiting.get(p.cod_op_service) ?? null,
      shown: p.numar,
    }));
    if (fields.confirmat !== '1') return c.html(<SaveAllConfirmation pairs={shown} />);

    const stale = shown.some((p) => p.submissions === null || p.submissions !== p.shown);
    if (stale) {
      const notice: EditorNotice = {
        kind: 'error',
        cod: 'CONFLICT_STARE',
        cauza: 'Între timp lista s-a schimbat (marcat mai jos). Nu s-a salvat nimic: verificați și confirmați din nou.',
      };
      return answerRefused(c, <SaveAllConfirmation pairs={shown.map((p) => ({ ...p, shown: p.shown }))} notice={notice} />, 'CONFLICT_STARE');
    }
    const serious = unconfirmedSerious(fields, pairs);
    if (serious) return answerRefused(c, <SaveAllConfirmation pairs={shown} notice={invalid(seriousRefusal(serious.cod_prestatie))} />, 'FORMULAR_INVALID');

    let saved: Awaited<ReturnType<typeof saveMappings>>;
    try {
      // The check above ran before the transaction: one mapped in between is refused inside it.
      saved = await saveMappings({ ctx, actor, pairs, requestId: c.get('requestId'), onlyNew: true });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      return answerRefused(
        c,
        <SaveAllConfirmation pairs={shown} notice={{ kind: 'error', cod: 'CONFLICT_STARE', cauza: `${error.cauza} Nu s-a salvat nimic: reveniți la listă.` }} />,
        'CONFLICT_STARE',
      );
    }
    const { mappings, reResolution } = saved;
    const text = `${mappings.length === 1 ? 'O mapare salvată' : `${mappings.length} mapări salvate`} (${mappings.map((m) => `${m.codOpService} → ${m.codPrestatie}`).join(', ')}); ${requeuedText(reResolution)}`;
    return c.html(await editor(c, ctx, { kind: 'ok', text }));
  });

  return app;
}
