import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { AppContext } from '../../context';
import { itemCode, type CanonicalItem } from '../../domain/canonical';
import type { ResolutionContext, TextRule } from '../../domain/resolve';
import { createBatcher } from '../batcher';

/**
 * Loads what resolving `items` for an account needs. Items that name a nomenclator code
 * need nothing more, so the common case costs no query beyond the cached nomenclator.
 */
export async function loadResolutionContext(ctx: AppContext, exec: Executor, accountId: number, items: readonly CanonicalItem[] | 'all'): Promise<ResolutionContext> {
  const nomenclatorMap = await ctx.nomenclator.get(exec);
  const codes = items === 'all' ? null : [...new Set(items.filter((i) => !(i.cod_prestatie && nomenclatorMap.has(i.cod_prestatie))).map(itemCode))];
  if (codes && codes.length === 0) return { nomenclator: nomenclatorMap, mappings: new Map(), textRules: [] };

  const { mappings, rules } = exec === ctx.db ? await ctx.lookups({ accountId, codes }) : (await lookupOperations(exec, [{ accountId, codes }]))[0]!;
  return {
    nomenclator: nomenclatorMap,
    mappings: new Map(mappings.map((r) => [r.from, r.to])),
    textRules: rules,
  };
}

export interface OperationsLookup {
  accountId: number;
  /** The codes to look mappings up for; null for all of the account's mappings. */
  codes: string[] | null;
}
export interface OperationsFound {
  mappings: Array<{ from: string; to: string }>;
  rules: TextRule[];
}

/** The mappings and text rules of several lookups in one round trip. */
export async function lookupOperations(exec: Executor, lookups: OperationsLookup[]): Promise<OperationsFound[]> {
  const rows = await exec.execute<{ mappings: OperationsFound['mappings'] | null; rules: TextRule[] | null }>(sql`
    SELECT
      (SELECT json_agg(json_build_object('from', m.cod_op_service, 'to', m.cod_prestatie)) FROM operation_mappings m
        WHERE m.account_id = l.account_id
          AND (l.codes IS NULL OR m.cod_op_service IN (SELECT jsonb_array_elements_text(l.codes)))) AS mappings,
      (SELECT json_agg(json_build_object('id', r.id, 'pattern', r.pattern, 'cod_prestatie', r.cod_prestatie, 'priority', r.priority))
        FROM text_rules r WHERE r.account_id = l.account_id) AS rules
    FROM jsonb_to_recordset(${JSON.stringify(lookups.map((l, i) => ({ i, account_id: l.accountId, codes: l.codes })))}::jsonb)
      AS l(i integer, account_id integer, codes jsonb)
    ORDER BY l.i`);
  return rows.map((r) => ({ mappings: r.mappings ?? [], rules: r.rules ?? [] }));
}

/**
 * Lookups of concurrent requests share one query (see batcher.ts), and identical lookups (the
 * same account and codes, as a workshop posting one kind of record sends) one row of it.
 */
export function createOperationsLoader(exec: Executor) {
  return createBatcher(
    async (lookups: OperationsLookup[]) => {
      const keys = lookups.map((l) => JSON.stringify([l.accountId, l.codes]));
      const distinct = new Map(keys.map((key, i) => [key, lookups[i]!]));
      const found = await lookupOperations(exec, [...distinct.values()]);
      const byKey = new Map([...distinct.keys()].map((key, i) => [key, found[i]!]));
      return keys.map((key) => byKey.get(key)!);
    },
    { maxInFlight: 1 },
  );
}
export type OperationsLoader = ReturnType<typeof createOperationsLoader>;
