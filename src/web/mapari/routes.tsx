import { answerRefused } from '../notice';
import { Hono } from 'hono';
import type { AppContext } from '../../context';
import { changeMapping, deleteMapping, saveMapping } from '../../services/operations/mappings';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { Layout } from '../layout';
import { MappingForm, requeuedText, seriousRefusal, unconfirmedSerious } from './form';
import { textRuleRoutes } from './rules-routes';
import { saveAllRoutes } from './save-all-routes';
import { costlySave, editor, invalid, refusal } from './screen';

/** Mapări: the editor page, its fragment and its forms (save-all and text rules in their own files). */
export function mapariRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();

  app.get('/mapari', async (c) => {
    const { user, csrfToken } = c.get('session');
    return c.html(
      <Layout title="Mapări" tab="mapari" user={user} csrfToken={csrfToken} alerts={c.get('alerts')}>
        <h1>Mapări</h1>
        <p class="muted">Asociați codurile operațiilor din programul dvs. cu codurile registrului. Salvarea repune în coadă trimiterile care așteptau codul.</p>
        {await editor(c, ctx)}
      </Layout>,
    );
  });

  app.get('/_fragments/mapari', async (c) => c.html(await editor(c, ctx)));

  /** One row's choice. Blank is refused (a row is never saved on "Alegeți codul…"); a serious code needs its box. */
  app.post('/mapari', costlySave(ctx), async (c) => {
    const fields = await readForm(c);
    const form = MappingForm.safeParse(fields);
    if (!form.success) return answerRefused(c, await editor(c, ctx, invalid('Alegeți codul registrului pentru operație: rândul nu se salvează fără cod.')), 'FORMULAR_INVALID');
    const chosen = new Map([[form.data.cod_op_service.toUpperCase(), form.data.cod_prestatie.toUpperCase()]]);
    const serious = unconfirmedSerious(fields, [form.data]);
    if (serious) return answerRefused(c, await editor(c, ctx, invalid(seriousRefusal(serious.cod_prestatie.toUpperCase())), chosen), 'FORMULAR_INVALID');
    try {
      const { mapping, reResolution } = await saveMapping({ ctx, actor: c.get('actor'), input: form.data, requestId: c.get('requestId') });
      return c.html(await editor(c, ctx, { kind: 'ok', text: `Maparea ${mapping.codOpService} → ${mapping.codPrestatie} a fost salvată; ${requeuedText(reResolution)}` }));
    } catch (error) {
      const notice = refusal(error);
      return answerRefused(c, await editor(c, ctx, notice, chosen), notice.cod);
    }
  });

  /** A saved mapping pointed at another code: journaled with the old code and who; only held submissions re-resolve. */
  app.post('/mapari/:code/modifica', costlySave(ctx), async (c) => {
    const code = c.req.param('code');
    const fields = await readForm(c);
    const form = MappingForm.safeParse({ cod_op_service: code, cod_prestatie: fields.cod_prestatie });
    if (!form.success) return answerRefused(c, await editor(c, ctx, invalid('Alegeți noul cod al registrului.')), 'FORMULAR_INVALID');
    const serious = unconfirmedSerious(fields, [form.data]);
    if (serious) return answerRefused(c, await editor(c, ctx, invalid(seriousRefusal(serious.cod_prestatie.toUpperCase()))), 'FORMULAR_INVALID');
    try {
      const { mapping, reResolution } = await changeMapping({
        ctx,
        actor: c.get('actor'),
        code,
        codPrestatie: form.data.cod_prestatie,
        requestId: c.get('requestId'),
      });
      return c.html(
        await editor(c, ctx, {
          kind: 'ok',
          text: `Maparea ${mapping.codOpService} indică acum ${mapping.codPrestatie}; ${requeuedText(reResolution)} Trimiterile deja în coadă sau trimise păstrează codul vechi.`,
        }),
      );
    } catch (error) {
      const notice = refusal(error);
      return answerRefused(c, await editor(c, ctx, notice), notice.cod);
    }
  });

  app.post('/mapari/:code/sterge', async (c) => {
    const code = c.req.param('code');
    try {
      await deleteMapping({ ctx, actor: c.get('actor'), code, requestId: c.get('requestId') });
      return c.html(await editor(c, ctx, { kind: 'ok', text: `Maparea ${code.toUpperCase()} a fost ștearsă.` }));
    } catch (error) {
      const notice = refusal(error);
      return answerRefused(c, await editor(c, ctx, notice), notice.cod);
    }
  });

  app.route('/', saveAllRoutes(ctx));
  app.route('/', textRuleRoutes(ctx));
  return app;
}
