import { and, asc, eq } from 'drizzle-orm';
import { textRules } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { journalActor } from '../../journal/actor';
import { withRetriedTransaction } from '../../context';
import type { TextRuleInput } from '../../domain/mapping-input';
import { NotFoundError } from '../../errors';
import { textRuleMatches } from '../../domain/resolve';
import { normalizeText } from '../../domain/text';
import { assertKnownCode } from './mappings';
import { reResolveHeld } from './re-resolve';

export interface TextRuleRecord {
  id: number;
  pattern: string;
  codPrestatie: string;
  priority: number;
  createdAt: Date;
}

function toRecord(r: typeof textRules.$inferSelect): TextRuleRecord {
  return { id: r.id, pattern: r.pattern, codPrestatie: r.codPrestatie, priority: r.priority, createdAt: r.createdAt };
}

export async function listTextRules({ ctx, actor }: { ctx: AppContext; actor: Actor }): Promise<TextRuleRecord[]> {
  const { accountId } = actor;
  const rows = await ctx.db.select().from(textRules).where(eq(textRules.accountId, accountId)).orderBy(asc(textRules.priority), asc(textRules.id));
  return rows.map(toRecord);
}

/** Creates or replaces (with `id`) a rule; held submissions are re-resolved in the same transaction. */
export async function saveTextRule({ ctx, input, id, requestId, actor }: { ctx: AppContext; input: TextRuleInput; id?: number; requestId: string; actor: Actor }) {
  const { accountId } = actor;
  const values = { pattern: input.pattern.trim(), codPrestatie: input.cod_prestatie.trim().toUpperCase(), priority: input.priority ?? 100 };
  await assertKnownCode(ctx, values.codPrestatie);
  const { row, reclasificate } = await withRetriedTransaction(ctx, async (tx) => {
    const [saved] =
      id === undefined
        ? await tx
            .insert(textRules)
            .values({ accountId, ...values })
            .returning()
        : await tx
            .update(textRules)
            .set(values)
            .where(and(eq(textRules.id, id), eq(textRules.accountId, accountId)))
            .returning();
    if (!saved) throw new NotFoundError();
    return { row: saved, reclasificate: await reResolveHeld(ctx, tx, accountId) };
  });
  ctx.journal.write({
    event: 'regula_text_salvata',
    requestId,
    accountId,
    data: { id: row.id, pattern: row.pattern, cod_prestatie: row.codPrestatie, ...journalActor(actor), ...reclasificate },
  });
  return { rule: toRecord(row), reResolution: reclasificate };
}

export async function deleteTextRule({ ctx, id, requestId, actor }: { ctx: AppContext; id: number; requestId: string; actor: Actor }) {
  const { accountId } = actor;
  const deleted = await ctx.db
    .delete(textRules)
    .where(and(eq(textRules.id, id), eq(textRules.accountId, accountId)))
    .returning({ pattern: textRules.pattern, codPrestatie: textRules.codPrestatie });
  if (deleted.length === 0) throw new NotFoundError();
  ctx.journal.write({
    event: 'regula_text_stearsa',
    requestId,
    accountId,
    data: { id, pattern: deleted[0]!.pattern, cod_prestatie: deleted[0]!.codPrestatie, ...journalActor(actor) },
  });
}

/** The pending operations a rule with `pattern` would resolve (the resolver's own matching). */
export function pendingMatches<T extends { denumire: string }>(pending: readonly T[], pattern: string): T[] {
  const normalizedPattern = normalizeText(pattern);
  return pending.filter((op) => textRuleMatches(normalizeText(op.denumire), normalizedPattern));
}
