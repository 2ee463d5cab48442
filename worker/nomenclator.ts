import type { WorkerContext } from './context';

/**
 * Upserts the registry's service codes into the global nomenclator. Nothing is ever
 * deleted, so the list never shrinks below the 18 fallback codes the mapping editor relies
 * on, and a registry that answers with an empty or partial list cannot erase mappings' targets.
 */
export async function refreshNomenclator(ctx: WorkerContext, token: string): Promise<number> {
  const { value: entries } = await ctx.registry.nomenclator(token);
  const unique = [...new Map(entries.map((e) => [e.cod, e])).values()];
  if (unique.length === 0) return 0;
  await ctx.sql`
    INSERT INTO nomenclator ${ctx.sql(unique.map((e) => ({ cod: e.cod, denumire: e.denumire, source: 'registry' })))}
    ON CONFLICT (cod) DO UPDATE SET denumire = EXCLUDED.denumire, source = 'registry', updated_at = now()`;
  ctx.journal.write({ event: 'nomenclator_refreshed', data: { codes: unique.length } });
  return unique.length;
}
