import { answerRefused } from '../notice';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { TextRuleInput } from '../../domain/mapping-input';
import { idParam } from '../../routes/params';
import { pendingOperations } from '../../services/operations/mappings';
import { deleteTextRule, pendingMatches, saveTextRule } from '../../services/operations/text-rules';
import type { WebEnv } from '../env';
import { readForm, type FormFields } from '../form';
import { requeuedText, seriousRefusal, unconfirmedSerious } from './form';
import { RuleTest } from './rules';
import { costlySave, editor, invalid, refusal } from './screen';

/** The form's fields as the API's schema reads them (priority arrives as text; blank keeps the default). */
const RuleForm = z.object({
  pattern: z.string(),
  cod_prestatie: z.string(),
  priority: z
    .string()
    .trim()
    .regex(/^\d{0,6}$/)
    .transform((v) => (v === '' ? undefined : Number(v)))
    .optional(),
});

function readRule(fields: FormFields) {
  const form = RuleForm.safeParse(fields);
  const rule = form.success ? TextRuleInput.safeParse(form.data) : null;
  return rule?.success ? rule.data : null;
}

const RULE_FIELDS = 'Completați textul căutat (2–200 caractere), codul registrului și prioritatea (0–100000).';

/** Text rules in Mapări: create, test against the pending names, edit, delete; journaled with who. */
export function textRuleRoutes(ctx: AppContext) {
  const app = new Hono<WebEnv>();

  async function save(c: Context<WebEnv>, id?: number) {
    const fields = await readForm(c);
    const input = readRule(fields);
    if (!input) return answerRefused(c, await editor(c, ctx, invalid(RULE_FIELDS)), 'FORMULAR_INVALID');
    if (unconfirmedSerious(fields, [{ cod_op_service: 'regula', cod_prestatie: input.cod_prestatie }])) {
      return answerRefused(c, await editor(c, ctx, invalid(seriousRefusal(input.cod_prestatie.toUpperCase()))), 'FORMULAR_INVALID');
    }
    try {
      const { rule, reResolution } = await saveTextRule({ ctx, actor: c.get('actor'), input, id, requestId: c.get('requestId') });
      return c.html(await editor(c, ctx, { kind: 'ok', text: `Regula „${rule.pattern}” → ${rule.codPrestatie} a fost salvată; ${requeuedText(reResolution)}` }));
    } catch (error) {
      const notice = refusal(error);
      return answerRefused(c, await editor(c, ctx, notice), notice.cod);
    }
  }

  app.post('/mapari/reguli', costlySave(ctx), (c) => save(c));
  app.post('/mapari/reguli/:id/modifica', costlySave(ctx), (c) => save(c, idParam(c.req.param('id'))));

  /** Nothing is saved: which pending operations the text would catch, and with which code. */
  app.post('/mapari/reguli/test', async (c) => {
    const fields = await readForm(c);
    const pattern = z.string().trim().min(2).max(200).safeParse(fields.pattern);
    if (!pattern.success) return answerRefused(c, <p class="notice error">Textul căutat trebuie să aibă 2–200 caractere.</p>, 'FORMULAR_INVALID');
    const code = typeof fields.cod_prestatie === 'string' && fields.cod_prestatie.trim() ? fields.cod_prestatie.trim().toUpperCase() : null;
    const nomenclator = await ctx.nomenclator.get(ctx.db);
    const pending = await pendingOperations({ ctx, actor: c.get('actor') });
    return c.html(<RuleTest pattern={pattern.data} code={code && nomenclator.has(code) ? code : null} matches={pendingMatches(pending, pattern.data)} />);
  });

  app.post('/mapari/reguli/:id/sterge', async (c) => {
    try {
      await deleteTextRule({ ctx, actor: c.get('actor'), id: idParam(c.req.param('id')), requestId: c.get('requestId') });
      return c.html(await editor(c, ctx, { kind: 'ok', text: 'Regula de text a fost ștearsă.' }));
    } catch (error) {
      const notice = refusal(error);
      return answerRefused(c, await editor(c, ctx, notice), notice.cod);
    }
  });

  return app;
}
