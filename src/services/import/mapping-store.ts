import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { columnMappings } from '../../../db/schema';
import { carryOverMapping, headerDrift, readColumnMapping, suggestMapping } from '../../domain/import-header';
import type { MappingState } from './batch';

/**
 * The mapping a new batch starts with: the one saved for exactly this header; else, when the
 * account saved one for another header, that one carried over with a drift report; else a
 * fuzzy suggestion from the header names.
 */
export async function initialMappingState(exec: Executor, accountId: number, header: string[], signature: string): Promise<MappingState> {
  const [exact] = await exec
    .select({ mapping: columnMappings.mapping })
    .from(columnMappings)
    .where(and(eq(columnMappings.accountId, accountId), eq(columnMappings.signature, signature)));
  if (exact) return { mapping: readColumnMapping(exact.mapping, header.length), source: 'saved', drift: null };

  const [latest] = await exec
    .select({ signature: columnMappings.signature, header: columnMappings.header, mapping: columnMappings.mapping })
    .from(columnMappings)
    .where(eq(columnMappings.accountId, accountId))
    .orderBy(desc(columnMappings.updatedAt))
    .limit(1);
  if (!latest) return { mapping: suggestMapping(header), source: 'suggested', drift: null };

  const savedHeader = Array.isArray(latest.header) ? latest.header.map((h) => String(h ?? '')) : [];
  const saved = readColumnMapping(latest.mapping, savedHeader.length);
  return {
    mapping: carryOverMapping(savedHeader, saved, header),
    source: 'suggested',
    drift: headerDrift(savedHeader, latest.signature, header),
  };
}

export async function saveAccountMapping(exec: Executor, accountId: number, header: string[], signature: string, mapping: Record<string, number>, now: Date) {
  await exec
    .insert(columnMappings)
    .values({ accountId, signature, header, mapping, updatedAt: now })
    .onConflictDoUpdate({ target: [columnMappings.accountId, columnMappings.signature], set: { header, mapping, updatedAt: now } });
}
