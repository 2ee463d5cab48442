import { inAccount } from '../../../db/account-scope';
import { and, asc, eq, sql } from 'drizzle-orm';
import { nomenclator, operationMappings } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { withRetriedTransaction } from '../../context';
import { BadRequestError, NotFoundError } from '../../errors';
import { reResolveHeld } from './re-resolve';
import type { Suggestion } from '../../domain/suggest';
import { accountExamples, suggestFor } from './suggestions';
import { journalActor } from '../../journal/actor';

/** The registry's codes, as the nomenclator table holds them (its `source`, when it was refreshed). */
export async function listNomenclator(ctx: AppContext) {
  return ctx.db.select().from(nomenclator).orderBy(asc(nomenclator.cod));
}
export type NomenclatorEntry = Awaited<ReturnType<typeof listNomenclator>>[number];

export interface MappingRecord {
  codOpService: string;
  codPrestatie: string;
  /** The registry code's name (null for a code no longer in the nomenclator). */
  denumirePrestatie: string | null;
  autoSend: boolean;
  updatedAt: Date;
}

export async function listMappings({ ctx, accountId }: { ctx: AppContext; accountId: number }): Promise<MappingRecord[]> {
  const rows = await ctx.db
    .select({ m: operationMappings, denumire: nomenclator.denumire })
    .from(operationMappings)
    .leftJoin(nomenclator, eq(nomenclator.cod, operationMappings.codPrestatie))
    .where(eq(operationMappings.accountId, accountId))
    .orderBy(asc(operationMappings.codOpService));
  return rows.map(({ m, denumire }) => ({ codOpService: m.codOpService, codPrestatie: m.codPrestatie, denumirePrestatie: denumire, autoSend: m.autoSend, updatedAt: m.updatedAt }));
}

/** A code of the account's that waits for a mapping. */
export interface PendingOperation {
  codOpService: string;
  /** A name the workshop sent with it ('' when none). */
  denumire: string;
  /** How many held submissions carry it. */
  submissions: number;
  suggestion: Suggestion | null;
}

/** The account's unmapped codes (filtered by account in the query), each with a preselected suggestion. */
export async function pendingOperations({ ctx, accountId }: { ctx: AppContext; accountId: number }): Promise<PendingOperation[]> {
  const rows = await ctx.db.execute<{ cod: string; n: number; denumire: string | null }>(sql`
    SELECT code AS cod, count(DISTINCT s.id)::int AS n, max(item.value->>'denumire') AS denumire
    FROM submissions s
    CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(s.nemapate, '[]'::jsonb)) AS code
    LEFT JOIN LATERAL (
      SELECT i AS value FROM jsonb_array_elements(s.payload_json->'prestatii') i
      WHERE coalesce(i->>'cod_op_service', i->>'cod_prestatie') = code LIMIT 1
    ) item ON true
    WHERE ${inAccount(accountId, sql`s.account_id`)} AND s.status IN ('needs_mapping', 'needs_data')
      AND NOT EXISTS (SELECT 1 FROM operation_mappings m WHERE m.account_id = ${accountId} AND m.cod_op_service = code)
    GROUP BY code ORDER BY n DESC, code`);
  const nomenclatorMap = await ctx.nomenclator.get(ctx.db);
  const examples = await accountExamples(ctx.db, accountId);
  return rows.map((r) => ({
    codOpService: r.cod,
    denumire: r.denumire ?? '',
    submissions: r.n,
    suggestion: suggestFor({ code: r.cod, denumire: r.denumire }, nomenclatorMap, examples),
  }));
}

/** A registry code the account points at must exist in the nomenclator. */
export async function assertKnownCode(ctx: AppContext, code: string): Promise<void> {
  const known = await ctx.nomenclator.get(ctx.db);
  if (!known.has(code)) {
    throw new BadRequestError('Codul dat în cod_prestatie nu există în nomenclatorul registrului; vedeți GET /v1/nomenclator.', 'cod_prestatie');
  }
}

/** Saves a mapping and, in the same transaction, re-resolves the account's held submissions. */
export async function saveMapping({
  ctx,
  accountId,
  input,
  requestId,
  actor,
}: {
  ctx: AppContext;
  accountId: number;
  input: { cod_op_service: string; cod_prestatie: string; auto_send?: boolean };
  requestId: string;
  /** Who saved it, for the journal; absent for a caller that is not a person or a key. */
  actor?: Actor;
}) {
  const from = input.cod_op_service.trim().toUpperCase();
  const to = input.cod_prestatie.trim().toUpperCase();
  await assertKnownCode(ctx, to);
  const reclasificate = await withRetriedTransaction(ctx, async (tx) => {
    await tx
      .insert(operationMappings)
      .values({ accountId, codOpService: from, codPrestatie: to, autoSend: input.auto_send ?? true })
      .onConflictDoUpdate({
        target: [operationMappings.accountId, operationMappings.codOpService],
        set: { codPrestatie: to, autoSend: input.auto_send ?? true, updatedAt: sql`now()` },
      });
    return reResolveHeld(ctx, tx, accountId);
  });
  ctx.journal.write({ event: 'mapare_salvata', requestId, accountId, data: { cod_op_service: from, cod_prestatie: to, ...reclasificate, ...journalActor(actor) } });
  return { mapping: { codOpService: from, codPrestatie: to, autoSend: input.auto_send ?? true }, reResolution: reclasificate };
}

export async function deleteMapping({ ctx, accountId, code, requestId, actor }: { ctx: AppContext; accountId: number; code: string; requestId: string; actor?: Actor }) {
  const deleted = await ctx.db
    .delete(operationMappings)
    .where(and(eq(operationMappings.accountId, accountId), eq(operationMappings.codOpService, code.trim().toUpperCase())))
    .returning({ id: operationMappings.id });
  if (deleted.length === 0) throw new NotFoundError();
  ctx.journal.write({ event: 'mapare_stearsa', requestId, accountId, data: { cod_op_service: code, ...journalActor(actor) } });
}
