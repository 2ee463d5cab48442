import { AppError } from '../../errors';
import { eq } from 'drizzle-orm';
import { importBatches } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { withTransaction } from '../../context';
import { headerKey, IMPORT_FIELDS, type ColumnMapping, type ImportField } from '../../domain/import-header';
import { assertStaged, loadBatch, type MappingState } from './batch';
import { saveAccountMapping } from './mapping-store';

/** A field's column as a client names it: a 0-based index, or the header text (null leaves it unmapped). */
export type ColumnRef = number | string | null;

const invalid = (cauza: string) => new AppError('IMPORT_MAPARE_INVALIDA', cauza);

/** Resolves the client's references against the header; every column may serve one field only. */
export function resolveColumnRefs(header: readonly string[], refs: Partial<Record<ImportField, ColumnRef>>): ColumnMapping {
  const mapping: ColumnMapping = {};
  const owner = new Map<number, ImportField>();
  for (const field of IMPORT_FIELDS) {
    const ref = refs[field];
    if (ref === null || ref === undefined) continue;
    const column = typeof ref === 'number' ? ref : header.findIndex((h) => headerKey(h) === headerKey(ref));
    if (!Number.isInteger(column) || column < 0 || column >= header.length) {
      throw invalid(
        typeof ref === 'number' ? `${field}: coloana ${ref} nu există (antetul are ${header.length} coloane).` : `${field}: nicio coloană din antet nu are numele dat.`,
      );
    }
    const taken = owner.get(column);
    if (taken) throw invalid(`Coloana ${column} („${header[column]}”) este aleasă și pentru ${taken}, și pentru ${field}.`);
    owner.set(column, field);
    mapping[field] = column;
  }
  return mapping;
}

/**
 * The client's fields over the current mapping: a field it names changes (null unmaps it), the
 * others keep their column unless the client gave that column to a field it named. Saving one
 * corrected field must not unmap the rest.
 */
export function mergeColumnMapping(current: ColumnMapping, given: ColumnMapping, named: ReadonlySet<ImportField>): ColumnMapping {
  const taken = new Set(Object.values(given));
  const merged: ColumnMapping = { ...given };
  for (const field of IMPORT_FIELDS) {
    const column = current[field];
    if (column !== undefined && !named.has(field) && !taken.has(column)) merged[field] = column;
  }
  return merged;
}

/**
 * Sets the batch's mapping and saves it for the account under the signature of the full
 * header, so the next file with this header starts from it. By default the given fields are
 * merged over the current mapping; `replace` makes them the whole mapping.
 */
export async function saveColumnMapping({
  ctx,
  actor,
  batchId,
  refs,
  replace = false,
}: {
  ctx: AppContext;
  actor: Actor;
  batchId: number;
  refs: Partial<Record<ImportField, ColumnRef>>;
  replace?: boolean;
}) {
  const { accountId } = actor;
  return withTransaction(ctx, undefined, async (tx) => {
    const batch = await loadBatch(tx, accountId, batchId, { forUpdate: true });
    assertStaged(batch);
    const given = resolveColumnRefs(batch.header, refs);
    const named = new Set(IMPORT_FIELDS.filter((field) => refs[field] !== undefined));
    const mapping = replace ? given : mergeColumnMapping(batch.mappingState.mapping, given, named);
    const state: MappingState = { mapping, source: 'saved', drift: null };
    await tx.update(importBatches).set({ columnMapping: state }).where(eq(importBatches.id, batch.id));
    await saveAccountMapping(tx, accountId, batch.header, batch.headerSignature, mapping, ctx.clock());
    return { ...batch, mappingState: state };
  });
}
