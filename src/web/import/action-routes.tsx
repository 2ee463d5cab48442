import { Hono, type Context } from 'hono';
import type { Actor, AppContext } from '../../context';
import { AppError } from '../../errors';
import { IMPORT_FIELDS, type ImportField } from '../../domain/import-header';
import { idParam, INT4_MAX } from '../../routes/params';
import { getImportBatch, assertStaged, saveColumnMapping, editImportRow, setRowReview, setRowLeftOut } from '../../services/import';
import { saveMapping } from '../../services/operations/mappings';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { MappingForm, requeuedText, seriousRefusal, unconfirmedSerious, values } from '../mapari/form';
import { errorNotice, type NoticeProps } from '../notice';
import { loadScreen, viewFrom } from './load';
import { clipped } from './labels';
import { ImportScreen } from './screen';
import { batchParam } from './screen-routes';

/** A refusal in the screen's notice box (app.js moves a 4xx there, keeping the screen). */
const refuse = (c: Context, cauza: string) => errorNotice(c, 'FORMULAR_INVALID', cauza);

/** After an action: the whole screen again, in the view it was sent from, with what happened; without htmx, its page. */
export async function answerScreen(c: Context<WebEnv>, ctx: AppContext, id: number, notice?: NoticeProps) {
  if (!c.req.header('hx-request')) return c.redirect(`/import/${id}`, 303);
  const data = await loadScreen(ctx, c.get('actor'), id, viewFrom(c.req.header('hx-current-url')), notice);
  return c.html(<ImportScreen data={data} />);
}

/** The batch exists for this account and can still change (404 / 409 as the services say), before a form is judged. */
async function changeable(ctx: AppContext, actor: Actor, id: number) {
  assertStaged(await getImportBatch({ ctx, actor, batchId: id }));
}

/** The actions on a staged batch: its column mapping, a code mapped once for its rows, a cell corrected, a held row included. */
export function actionRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();

  /** Every column's field, in header order (`camp` once per column; "" for a column not used). */
  app.post('/_import/:id/coloane', async (c) => {
    const id = batchParam(c);
    const actor = c.get('actor');
    const batch = await getImportBatch({ ctx, actor, batchId: id });
    assertStaged(batch);
    const chosen = values(await readForm(c), 'camp');
    if (chosen.length !== batch.header.length) return refuse(c, 'Trimiteți câmpul fiecărei coloane a fișierului.');
    const refs: Partial<Record<ImportField, number>> = {};
    for (const [column, field] of chosen.entries()) {
      if (field === '') continue;
      if (!(IMPORT_FIELDS as readonly string[]).includes(field)) return refuse(c, 'Un câmp ales nu există.');
      const f = field as ImportField;
      if (refs[f] !== undefined)
        return refuse(
          c,
          `Două coloane sunt citite ca același câmp: „${clipped(batch.header[refs[f]!] ?? '')}” și „${clipped(batch.header[column] ?? '')}”. Alegeți „nu se folosește” la una dintre ele.`,
        );
      refs[f] = column;
    }
    await saveColumnMapping({ ctx, actor, batchId: id, refs, replace: true });
    return answerScreen(c, ctx, id, { kind: 'ok', text: 'Maparea coloanelor a fost salvată pentru acest antet; exemplele și rândurile de mai jos o folosesc.' });
  });

  /** A code of the file mapped for the account (the Mapări rules, serious-code guard included): every row with it is read again. */
  app.post('/_import/:id/mapare-operatie', async (c) => {
    const id = batchParam(c);
    const actor = c.get('actor');
    await changeable(ctx, actor, id);
    const fields = await readForm(c);
    const form = MappingForm.safeParse(fields);
    if (!form.success) return refuse(c, 'Alegeți codul registrului pentru operație.');
    const serious = unconfirmedSerious(fields, [form.data]);
    if (serious) return refuse(c, seriousRefusal(serious.cod_prestatie.toUpperCase()));
    try {
      const { mapping, reResolution } = await saveMapping({ ctx, actor, input: form.data, requestId: c.get('requestId') });
      c.header('HX-Trigger', 'coada:schimbata');
      return answerScreen(c, ctx, id, {
        kind: 'ok',
        text: `Maparea ${mapping.codOpService} → ${mapping.codPrestatie} a fost salvată în cont; rândurile cu acest cod au fost citite din nou. În Trimiteri, ${requeuedText(reResolution)}`,
      });
    } catch (error) {
      if (error instanceof AppError && error.cod === 'CERERE_INVALIDA') return refuse(c, 'Codul ales nu există în nomenclatorul registrului.');
      throw error;
    }
  });

  /** One cell corrected (the API's row edit: an override, applied last; an empty value clears it). */
  app.post('/_import/:id/rand/:i/editeaza', async (c) => {
    const id = batchParam(c);
    const rowIndex = idParam(c.req.param('i') ?? '', INT4_MAX);
    const fields = await readForm(c);
    const field = fields.camp;
    const value = fields.valoare;
    if (typeof field !== 'string' || !(IMPORT_FIELDS as readonly string[]).includes(field)) return refuse(c, 'Câmpul de corectat nu există.');
    if (typeof value !== 'string' || value.length > 500) return refuse(c, 'Valoarea are cel mult 500 de caractere.');
    await editImportRow({ ctx, actor: c.get('actor'), batchId: id, rowIndex, edits: { [field]: value.trim() === '' ? null : value }, requestId: c.get('requestId') });
    return answerScreen(c, ctx, id);
  });

  /** A held row included on purpose (or held again: include=0). */
  app.post('/_import/:id/rand/:i/revizuire', async (c) => {
    const id = batchParam(c);
    const rowIndex = idParam(c.req.param('i') ?? '', INT4_MAX);
    const include = (await readForm(c)).include;
    if (include !== '1' && include !== '0') return refuse(c, 'Alegeți dacă rândul se include.');
    await setRowReview({ ctx, actor: c.get('actor'), batchId: id, rowIndex, include: include === '1', requestId: c.get('requestId') });
    return answerScreen(c, ctx, id, { kind: 'ok', text: include === '1' ? 'Rândul este inclus: se trimite cu celelalte.' : 'Rândul este ținut deoparte.' });
  });

  /** A row left out of the commit by hand (deoparte=1), or taken back in (deoparte=0). */
  app.post('/_import/:id/rand/:i/deoparte', async (c) => {
    const id = batchParam(c);
    const rowIndex = idParam(c.req.param('i') ?? '', INT4_MAX);
    const leave = (await readForm(c)).deoparte;
    if (leave !== '1' && leave !== '0') return refuse(c, 'Alegeți dacă rândul rămâne deoparte.');
    await setRowLeftOut({ ctx, actor: c.get('actor'), batchId: id, rowIndex, leftOut: leave === '1', requestId: c.get('requestId') });
    return answerScreen(c, ctx, id, { kind: 'ok', text: leave === '1' ? 'Rândul a fost lăsat deoparte: nu se trimite.' : 'Rândul a fost inclus din nou.' });
  });

  return app;
}
