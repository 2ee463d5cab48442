import { sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context';
import { parseActorLabel } from '../../journal/actor';
import type { JournalEventName } from '../../journal/events';
import { nameActors, type JournalActorName } from '../journal/actors';

export interface MappingChange {
  at: Date;
  event: Extract<JournalEventName, 'mapare_salvata' | 'mapare_modificata' | 'mapare_stearsa'>;
  codOpService: string;
  /** The registry code before (a change, a delete), and after (a save, a change). */
  from: string | null;
  to: string | null;
  /** Who: a web user or an API key (journal/actor.ts), or null for an event that names no one. */
  by: JournalActorName | null;
}

const PER_CODE = 20;

/**
 * The journaled history of the account's mappings of `codes`, newest first, at most 20 per
 * code. Read from the journal (filtered by account in the query), after flushing it, so the
 * change just made is in it.
 */
export async function mappingHistory({ ctx, actor, codes }: { ctx: AppContext; actor: Actor; codes: string[] }): Promise<Map<string, MappingChange[]>> {
  const { accountId } = actor;
  const byCode = new Map<string, MappingChange[]>();
  if (codes.length === 0) return byCode;
  await ctx.journal.flush();
  const rows = await ctx.db.execute<{ ts: string; event: MappingChange['event']; cod: string; from: string | null; to: string | null; by: string | null }>(sql`
    SELECT ts, event, cod, "from", "to", "by" FROM (
      SELECT e.ts, e.event, e.data->>'cod_op_service' AS cod, e.data->>'cod_vechi' AS "from",
        CASE WHEN e.event = 'mapare_stearsa' THEN NULL ELSE e.data->>'cod_prestatie' END AS "to",
        e.data->>'actor' AS "by",
        row_number() OVER (PARTITION BY e.data->>'cod_op_service' ORDER BY e.id DESC) AS n
      FROM app_events e
      WHERE e.account_id = ${accountId}
        AND e.event IN ('mapare_salvata', 'mapare_modificata', 'mapare_stearsa')
        AND e.data->>'cod_op_service' IN (SELECT jsonb_array_elements_text(${JSON.stringify(codes)}::jsonb))
    ) h WHERE n <= ${PER_CODE} ORDER BY cod, ts DESC`);
  const name = await nameActors({ ctx, accountId, refs: rows.map((r) => parseActorLabel(r.by)) });
  for (const r of rows) {
    const list = byCode.get(r.cod) ?? [];
    list.push({ at: new Date(r.ts), event: r.event, codOpService: r.cod, from: r.from, to: r.to, by: name(parseActorLabel(r.by)) });
    byCode.set(r.cod, list);
  }
  return byCode;
}
