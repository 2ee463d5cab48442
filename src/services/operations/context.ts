import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { operationMappings, textRules } from '../../../db/schema';
import type { AppContext } from '../../context';
import { itemCode, type CanonicalItem } from '../../domain/canonical';
import type { ResolutionContext } from '../../domain/resolve';

/**
 * Loads what resolving `items` for an account needs. Items that name a nomenclator code
 * need nothing more, so the common case costs no query beyond the cached nomenclator.
 */
export async function loadResolutionContext(
  ctx: AppContext,
  exec: Executor,
  accountId: number,
  items: readonly CanonicalItem[] | 'all',
): Promise<ResolutionContext> {
  const nomenclatorMap = await ctx.nomenclator.get(exec);
  const codes =
    items === 'all' ? null : [...new Set(items.filter((i) => !(i.cod_prestatie && nomenclatorMap.has(i.cod_prestatie))).map(itemCode))];
  if (codes && codes.length === 0) return { nomenclator: nomenclatorMap, mappings: new Map(), textRules: [] };

  const [mappingRows, ruleRows] = await Promise.all([
    exec
      .select({ from: operationMappings.codOpService, to: operationMappings.codPrestatie })
      .from(operationMappings)
      .where(
        codes
          ? and(eq(operationMappings.accountId, accountId), inArray(operationMappings.codOpService, codes))
          : eq(operationMappings.accountId, accountId),
      ),
    exec
      .select({ id: textRules.id, pattern: textRules.pattern, cod_prestatie: textRules.codPrestatie, priority: textRules.priority })
      .from(textRules)
      .where(eq(textRules.accountId, accountId)),
  ]);
  return {
    nomenclator: nomenclatorMap,
    mappings: new Map(mappingRows.map((r) => [r.from, r.to])),
    textRules: ruleRows,
  };
}
