import { Hono } from 'hono';
import { actorLabel, type AppContext } from '../../context';
import { commitImportBatch, previewImportBatch } from '../../services/import';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { AppError } from '../../errors';
import { INT4_MAX } from '../../routes/params';
import { countOf } from '../ui/format';
import { answerScreen } from './action-routes';
import { readTypedCount } from './commit';
import { batchParam } from './screen-routes';
import { errorNotice } from '../notice';

const HASH = /^[0-9a-f]{64}$/;
const rows = (n: number) => countOf(n, 'un rând', 'rânduri');

/**
 * The commit: the number the clerk typed and the `rows_hash` of the screen they saw, through the
 * API's own gate (commitImportBatch: both must match the batch now, or nothing is written).
 */
export function commitRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();

  app.post('/_import/:id/confirma', async (c) => {
    const id = batchParam(c);
    const actor = c.get('actor');
    const fields = await readForm(c);
    const typed = readTypedCount(typeof fields.numar === 'string' ? fields.numar : '');
    const rowsHash = typeof fields.rows_hash === 'string' ? fields.rows_hash : '';
    if (typed === null || typed > INT4_MAX) return errorNotice(c, 'FORMULAR_INVALID', 'Scrieți numărul de rânduri de trimis în cifre, ca pe ecran (de exemplu 20.001 sau 20001).');
    if (!HASH.test(rowsHash)) return errorNotice(c, 'FORMULAR_INVALID', 'Reîncărcați pagina: formularul nu mai corespunde importului.');
    const result = await commitImportBatch({
      ctx,
      actor,
      batchId: id,
      input: { n_confirmed: typed, rows_hash: rowsHash },
      confirmedBy: actorLabel(actor),
      requestId: c.get('requestId'),
    }).catch(async (error: unknown) => {
      // The API's cause counts in digits ("1 rânduri"); the clerk reads both numbers in words.
      if (error instanceof AppError && error.cod === 'IMPORT_CONFIRMARE_NUMAR') {
        const { summary } = await previewImportBatch({ ctx, actor, batchId: id, query: { page: 1, page_size: 1 } });
        throw new AppError(
          'IMPORT_CONFIRMARE_NUMAR',
          `Ați scris ${rows(typed)}; de trimis ${summary.nToCommit === 1 ? 'este acum un rând' : `sunt acum ${rows(summary.nToCommit)}`}.`,
        );
      }
      throw error;
    });
    ctx.journal.write({
      event: 'web_import',
      requestId: c.get('requestId'),
      accountId: actor.accountId,
      data: { op: 'commit', batch_id: id, inserted: result.inserted, actor: actorLabel(actor) },
    });
    // The Trimiteri list, where the rows are followed, refreshes if it is on screen.
    c.header('HX-Trigger', 'coada:schimbata');
    // What the commit stored is submissions (a visit's lines are one); the rows are counted below it.
    return answerScreen(c, ctx, id, { kind: 'ok', text: `Importul a fost confirmat: ${countOf(result.inserted, 'o trimitere nouă', 'trimiteri noi')} în Trimiteri.` });
  });

  return app;
}
