import { eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { importBatches } from '../../../db/schema';
import type { AppContext } from '../../context';
import type { ResolutionContext } from '../../domain/resolve';
import { loadResolutionContext } from '../operations/context';
import type { LoadedBatch } from './batch';
import { rowFacts, sameFacts, writeFacts, type RowFacts } from './facts';
import { fingerprint, readFingerprint, staleScope, type Fingerprint, type StaleScope } from './fingerprint';
import { applyReadings, newVinKey, openVinKey, readingsForVins, readingsSince, readingsWatermark, vinHasher, type VinHasher } from './readings';
import { readRows, rowSetting, stagedRows } from './rows';
import { clearVinSubmissions, linkVinSubmissions, submissionsForVins, submissionsSince } from './sent-records';

/** What the rows were derived against, for the rows that are decrypted afterwards (page, commit). */
export interface Derivation {
  resolution: ResolutionContext;
  now: Date;
  vinHmac: VinHasher;
}

function scopeCondition(scope: StaleScope): SQL | null {
  if (scope.kind === 'none') return null;
  if (scope.kind === 'all') return sql`true`;
  const parts: SQL[] = [];
  if (scope.codes.length > 0) parts.push(sql`client_codes ?| (SELECT array_agg(c) FROM jsonb_array_elements_text(${JSON.stringify(scope.codes)}::jsonb) AS c)`);
  if (scope.textRules) parts.push(sql`rule_bound IS NOT false`);
  if (scope.datedAfter !== null) parts.push(sql`data_prestatie > ${scope.datedAfter}`);
  return sql.join(parts, sql` OR `);
}

/** Decrypts and classifies the rows in scope again, and rewrites their derived columns. */
async function rederive(ctx: AppContext, exec: Executor, batch: LoadedBatch, where: SQL, derivation: Derivation, full: boolean): Promise<string[]> {
  // A full pass may meet new VINs (another column is the VIN now): their readings are looked up again.
  const vins = new Set<string>();
  for await (const chunk of stagedRows(exec, ctx.keyring, batch.id, where)) {
    const changed: RowFacts[] = [];
    const readings = await readRows(chunk, batch, derivation.resolution, derivation.now, ctx.keyring);
    for (const [i, staged] of chunk.entries()) {
      const reading = readings[i]!;
      const facts = rowFacts(staged.row_index, reading, derivation.vinHmac);
      // Same facts, same VIN and date: its recorded reading stays right too.
      if (!sameFacts(staged, facts)) changed.push(facts);
      if (full && reading.verdict.content.vin) vins.add(reading.verdict.content.vin);
    }
    await writeFacts(exec, batch.id, changed, full);
  }
  return [...vins];
}

/**
 * Brings the batch's derived columns up to date, in the caller's transaction (the batch row
 * locked): the rows whose derivation depended on what changed are derived again, and
 * odometer readings stored since the last look are applied. A batch already up to date costs
 * one query for the account's mappings and one for new readings.
 */
export async function refreshDerived(ctx: AppContext, exec: Executor, batch: LoadedBatch): Promise<Derivation> {
  let key = openVinKey(ctx.keyring, batch.vinKeyEnc);
  // No key (or one that no longer decrypts): a new one, and every row hashed again with it.
  const rekey = key === null;
  if (key === null) {
    const fresh = newVinKey(ctx.keyring);
    key = fresh.key;
    await exec.update(importBatches).set({ vinKeyEnc: fresh.stored }).where(eq(importBatches.id, batch.id));
  }
  const derivation: Derivation = { resolution: await loadResolutionContext(ctx, exec, batch.accountId, 'all'), now: ctx.clock(), vinHmac: vinHasher(key) };
  const stored = readFingerprint(batch.derivedFp);
  const current: Fingerprint = fingerprint(rowSetting(batch), derivation.resolution, derivation.now, stored?.seen ?? 0);
  const scope = rekey ? ({ kind: 'all' } as const) : staleScope(stored, current);
  const where = scopeCondition(scope);

  if (scope.kind === 'all') {
    const watermark = await readingsWatermark(exec, batch.accountId);
    const vins = await rederive(ctx, exec, batch, where!, derivation, true);
    await applyReadings(exec, derivation.vinHmac, batch.id, await readingsForVins(exec, batch.accountId, vins));
    if (rekey) await clearVinSubmissions(exec, batch.id);
    await linkVinSubmissions(exec, derivation.vinHmac, batch.id, await submissionsForVins(exec, batch.accountId, vins));
    current.seen = watermark;
  } else {
    if (where) await rederive(ctx, exec, batch, where, derivation, false);
    const since = await readingsSince(exec, batch.accountId, current.seen);
    await applyReadings(exec, derivation.vinHmac, batch.id, since.readings);
    if (since.watermark !== current.seen) await linkVinSubmissions(exec, derivation.vinHmac, batch.id, await submissionsSince(exec, batch.accountId, current.seen));
    current.seen = since.watermark;
  }
  if (where || current.seen !== stored?.seen) {
    await exec.update(importBatches).set({ derivedFp: current }).where(eq(importBatches.id, batch.id));
  }
  return derivation;
}

/**
 * What a batch still `staging` (or `failed`) is shown with: today's resolution and clock, and
 * nothing written. Its derived columns are being written by its staging, against the
 * resolution that staging started with; its fingerprint is stored when it completes, so the
 * first refresh after that derives again whatever changed meanwhile.
 */
export async function stagingDerivation(ctx: AppContext, exec: Executor, batch: LoadedBatch): Promise<Derivation> {
  // The rows shown are decrypted, not hashed: a key that does not open is not replaced here.
  const key = openVinKey(ctx.keyring, batch.vinKeyEnc) ?? newVinKey(ctx.keyring).key;
  return { resolution: await loadResolutionContext(ctx, exec, batch.accountId, 'all'), now: ctx.clock(), vinHmac: vinHasher(key) };
}
