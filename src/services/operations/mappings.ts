import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { nomenclator, operationMappings } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { withRetriedTransaction } from '../../context';
import { BadRequestError, ConflictError, NotFoundError } from '../../errors';
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

export async function listMappings({ ctx, actor }: { ctx: AppContext; actor: Actor }): Promise<MappingRecord[]> {
  const { accountId } = actor;
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
export async function pendingOperations({ ctx, actor }: { ctx: AppContext; actor: Actor }): Promise<PendingOperation[]> {
  const { accountId } = actor;
  const rows = await ctx.db.execute<{ cod: string; n: number; denumire: string | null }>(sql`
    SELECT code AS cod, count(DISTINCT s.id)::int AS n, max(item.value->>'denumire') AS denumire
    FROM submissions s
    CROSS JOIN LATERAL jsonb_array_elements_text(coalesce(s.nemapate, '[]'::jsonb)) AS code
    LEFT JOIN LATERAL (
      SELECT i AS value FROM jsonb_array_elements(s.payload_json->'prestatii') i
      WHERE coalesce(i->>'cod_op_service', i->>'cod_prestatie') = code LIMIT 1
    ) item ON true
    WHERE s.scope_account_id = ${accountId} AND s.status IN ('needs_mapping', 'needs_data')
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

type MappingPair = { cod_op_service: string; cod_prestatie: string; auto_send?: boolean };

/**
 * Saves mappings (one, or a clerk's confirmed list) and, in the same transaction, re-resolves
 * the account's held submissions once. Each mapping is journaled with who saved it; a code that
 * was mapped before is journaled as changed, with its old registry code.
 */
export async function saveMappings({
  ctx,
  pairs,
  requestId,
  actor,
  onlyNew = false,
}: {
  ctx: AppContext;
  pairs: MappingPair[];
  requestId: string;
  /** Who saved it, for the journal. */
  actor: Actor;
  /** The clerk confirmed these codes as unmapped: one mapped meanwhile refuses them all (ConflictError). */
  onlyNew?: boolean;
}) {
  const { accountId } = actor;
  const rows = pairs.map((p) => ({ from: p.cod_op_service.trim().toUpperCase(), to: p.cod_prestatie.trim().toUpperCase(), autoSend: p.auto_send ?? true }));
  for (const r of rows) await assertKnownCode(ctx, r.to);
  const { before, reclasificate } = await withRetriedTransaction(ctx, async (tx) => {
    const old = await tx
      .select({ from: operationMappings.codOpService, to: operationMappings.codPrestatie })
      .from(operationMappings)
      .where(
        and(
          eq(operationMappings.accountId, accountId),
          inArray(
            operationMappings.codOpService,
            rows.map((r) => r.from),
          ),
        ),
      );
    if (onlyNew && old.length > 0) throw new ConflictError(`Codul ${old[0]!.from} a fost mapat între timp.`);
    for (const r of rows) {
      await tx
        .insert(operationMappings)
        .values({ accountId, codOpService: r.from, codPrestatie: r.to, autoSend: r.autoSend })
        .onConflictDoUpdate({
          target: [operationMappings.accountId, operationMappings.codOpService],
          set: { codPrestatie: r.to, autoSend: r.autoSend, updatedAt: sql`now()` },
        });
    }
    return { before: new Map(old.map((o) => [o.from, o.to])), reclasificate: await reResolveHeld(ctx, tx, accountId) };
  });
  for (const r of rows) {
    const old = before.get(r.from);
    const data = { cod_op_service: r.from, cod_prestatie: r.to, ...(old ? { cod_vechi: old } : {}), ...journalActor(actor), ...reclasificate };
    ctx.journal.write({ event: old ? 'mapare_modificata' : 'mapare_salvata', requestId, accountId, data });
  }
  return { mappings: rows.map((r) => ({ codOpService: r.from, codPrestatie: r.to, autoSend: r.autoSend })), reResolution: reclasificate };
}

/** Saves one mapping (see saveMappings). */
export async function saveMapping({ ctx, input, requestId, actor }: { ctx: AppContext; input: MappingPair; requestId: string; actor: Actor }) {
  const { mappings, reResolution } = await saveMappings({ ctx, pairs: [input], requestId, actor });
  return { mapping: mappings[0]!, reResolution };
}

/**
 * Points an existing mapping of the account at another registry code. Only held submissions
 * are re-resolved: what was queued or sent with the old code stays as it is (a registry record
 * cannot be taken back). Another account's mapping is the same 404 as a missing one.
 */
export async function changeMapping({ ctx, code, codPrestatie, requestId, actor }: { ctx: AppContext; code: string; codPrestatie: string; requestId: string; actor: Actor }) {
  const { accountId } = actor;
  const from = code.trim().toUpperCase();
  const [existing] = await ctx.db
    .select({ id: operationMappings.id })
    .from(operationMappings)
    .where(and(eq(operationMappings.accountId, accountId), eq(operationMappings.codOpService, from)));
  if (!existing) throw new NotFoundError();
  return saveMapping({ ctx, input: { cod_op_service: from, cod_prestatie: codPrestatie }, requestId, actor });
}

export async function deleteMapping({ ctx, code, requestId, actor }: { ctx: AppContext; code: string; requestId: string; actor: Actor }) {
  const { accountId } = actor;
  const from = code.trim().toUpperCase();
  const deleted = await ctx.db
    .delete(operationMappings)
    .where(and(eq(operationMappings.accountId, accountId), eq(operationMappings.codOpService, from)))
    .returning({ to: operationMappings.codPrestatie });
  if (deleted.length === 0) throw new NotFoundError();
  ctx.journal.write({ event: 'mapare_stearsa', requestId, accountId, data: { cod_op_service: from, cod_vechi: deleted[0]!.to, ...journalActor(actor) } });
}
