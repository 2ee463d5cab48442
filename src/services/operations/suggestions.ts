import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { suggestCode, type Suggestion, type SuggestionExample } from '../../domain/suggest';

/**
 * The account's own examples for the suggestion: each saved mapping (its workshop code read
 * as a name) and each text rule (its pattern). Filtered by account in the query: another
 * account's choices never shape this one's suggestions.
 */
export async function accountExamples(exec: Executor, accountId: number): Promise<SuggestionExample[]> {
  return exec.execute<{ text: string; cod_prestatie: string }>(sql`
    SELECT cod_op_service AS text, cod_prestatie FROM operation_mappings WHERE account_id = ${accountId}
    UNION ALL
    SELECT pattern AS text, cod_prestatie FROM text_rules WHERE account_id = ${accountId}`);
}

/** One suggester for the pending list, the mapping editor and the import's preview. */
export function suggestFor(op: { code: string; denumire: string | null }, nomenclator: ReadonlyMap<string, string>, examples: readonly SuggestionExample[]): Suggestion | null {
  return suggestCode(op.denumire || op.code, nomenclator, { code: op.code, examples });
}
