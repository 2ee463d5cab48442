import { Hono, type Context } from 'hono';
import type { AppContext } from '../../context';
import { AppError } from '../../errors';
import { deleteMapping, listMappings, pendingOperations, saveMapping } from '../../services/operations/mappings';
import { listTextRules } from '../../services/operations/text-rules';
import type { WebEnv } from '../env';
import { readForm } from '../form';
import { Layout } from '../layout';
import { MappingEditor, type EditorNotice } from './editor';
import { MappingForm, requeuedText } from './form';

async function editor(c: Context<WebEnv>, ctx: AppContext, notice?: EditorNotice) {
  const accountId = c.get('actor').accountId;
  const [pending, saved, rules, nomenclator] = await Promise.all([
    pendingOperations({ ctx, accountId }),
    listMappings({ ctx, accountId }),
    listTextRules({ ctx, accountId }),
    ctx.nomenclator.get(ctx.db),
  ]);
  return <MappingEditor pending={pending} saved={saved} rules={rules} nomenclator={nomenclator} notice={notice} />;
}

/** A service's refusal (an unknown code, a missing mapping) as the editor's notice. */
function refusal(error: unknown): EditorNotice {
  if (error instanceof AppError && error.status === 400)
    return { kind: 'error', cod: 'CERERE_INVALIDA', cauza: 'Codul ales nu există în nomenclatorul registrului; alegeți unul din listă.' };
  if (error instanceof AppError && error.status === 404) return { kind: 'error', cod: 'CONFLICT_STARE', cauza: 'Maparea nu mai există (a fost ștearsă între timp).' };
  throw error;
}

/** Mapări: the editor page, its fragment and its forms. */
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

  app.post('/mapari', async (c) => {
    const form = MappingForm.safeParse(await readForm(c));
    if (!form.success) return c.html(await editor(c, ctx, { kind: 'error', cod: 'CERERE_INVALIDA', cauza: 'Alegeți codul registrului pentru operație.' }), 422);
    try {
      const { mapping, reResolution } = await saveMapping({ ctx, accountId: c.get('actor').accountId, input: form.data, requestId: c.get('requestId'), actor: c.get('actor') });
      const text = `Maparea ${mapping.codOpService} → ${mapping.codPrestatie} a fost salvată; ${requeuedText(reResolution)}`;
      return c.html(await editor(c, ctx, { kind: 'ok', text }));
    } catch (error) {
      return c.html(await editor(c, ctx, refusal(error)), 422);
    }
  });

  /** Every pending code with a suggestion, saved as suggested (one mapping at a time, each re-resolving). */
  app.post('/mapari/sugestii', async (c) => {
    const accountId = c.get('actor').accountId;
    let saved = 0;
    const total = { queued: 0, needs_mapping: 0 };
    for (const op of await pendingOperations({ ctx, accountId })) {
      if (!op.suggestion) continue;
      const { reResolution } = await saveMapping({
        ctx,
        accountId,
        input: { cod_op_service: op.codOpService, cod_prestatie: op.suggestion.cod_prestatie },
        requestId: c.get('requestId'),
        actor: c.get('actor'),
      });
      saved += 1;
      total.queued += reResolution.queued;
      // Still held after the last save: what no suggestion could release.
      total.needs_mapping = reResolution.needs_mapping;
    }
    const text = saved === 0 ? 'Nicio sugestie de salvat.' : `${saved} mapări salvate; ${requeuedText(total)}`;
    return c.html(await editor(c, ctx, { kind: 'ok', text }));
  });

  app.post('/mapari/:code/sterge', async (c) => {
    const code = c.req.param('code');
    try {
      await deleteMapping({ ctx, accountId: c.get('actor').accountId, code, requestId: c.get('requestId'), actor: c.get('actor') });
      return c.html(await editor(c, ctx, { kind: 'ok', text: `Maparea ${code.toUpperCase()} a fost ștearsă.` }));
    } catch (error) {
      return c.html(await editor(c, ctx, refusal(error)), 404);
    }
  });

  return app;
}
