import { z } from 'zod';
import { MappingInput } from '../../domain/mapping-input';
import { isSerious } from '../../domain/serious-codes';
import type { FormFields } from '../form';

/** The form's two fields (the API's schema; auto_send keeps its default). */
export const MappingForm = MappingInput.pick({ cod_op_service: true, cod_prestatie: true });

/** What a saved mapping did to the held submissions, in words. */
export function requeuedText({ queued, needs_mapping: held }: { queued: number; needs_mapping: number }): string {
  const requeued = queued === 0 ? 'nicio trimitere nu a fost repusă în coadă' : queued === 1 ? 'o trimitere a fost repusă în coadă' : `${queued} trimiteri au fost repuse în coadă`;
  return held > 0 ? `${requeued}; ${held} așteaptă încă alte coduri.` : `${requeued}.`;
}

/** Every value of a field, in order (a field sent once is a list of one). */
export function values(fields: FormFields, name: string): string[] {
  const v = fields[name];
  const list = v === undefined ? [] : Array.isArray(v) ? v : [v];
  return list.map((x) => (typeof x === 'string' ? x : ''));
}

/**
 * The serious code a form chose without ticking its confirmation box (named by the operation's
 * code), or null. Every web form that saves a registry code asks this; the API does not (its
 * caller chose the code in its own program).
 */
export function unconfirmedSerious(fields: FormFields, pairs: ReadonlyArray<{ cod_op_service: string; cod_prestatie: string }>) {
  const confirmed = new Set(values(fields, 'confirm_grav').map((v) => v.trim().toUpperCase()));
  return pairs.find((p) => isSerious(p.cod_prestatie.trim().toUpperCase()) && !confirmed.has(p.cod_op_service.trim().toUpperCase())) ?? null;
}

/** Why a serious code needs its box ticked, in the clerk's words. */
export const seriousRefusal = (code: string) =>
  `Codul ${code} are consecințe legale: o înregistrare cu el nu se mai poate retrage din registru. Dacă operația chiar este aceasta, bifați confirmarea de lângă cod și salvați din nou.`;

const MAX_PAIRS = 500;
const Count = z.coerce.number().int().min(0).max(1_000_000_000);

/**
 * The pairs a save-all posts, each row's current choice in page order: `cod_op_service` and
 * `cod_prestatie` repeated once per row (and, at the confirmation step, `numar`: the count the
 * clerk was shown). A row left on "Alegeți codul…" is skipped, never saved blank. Null for a
 * body that is not such a list.
 */
export function readPairs(fields: FormFields): Array<{ cod_op_service: string; cod_prestatie: string; numar: number | null }> | null {
  const ops = values(fields, 'cod_op_service');
  const codes = values(fields, 'cod_prestatie');
  const counts = values(fields, 'numar');
  if (ops.length !== codes.length || ops.length > MAX_PAIRS || (counts.length > 0 && counts.length !== ops.length)) return null;
  const pairs = [];
  for (let i = 0; i < ops.length; i++) {
    if (!codes[i]!.trim()) continue;
    const pair = MappingForm.safeParse({ cod_op_service: ops[i], cod_prestatie: codes[i] });
    const numar = counts.length > 0 ? Count.safeParse(counts[i]) : null;
    if (!pair.success || (numar && !numar.success)) return null;
    pairs.push({ cod_op_service: pair.data.cod_op_service.toUpperCase(), cod_prestatie: pair.data.cod_prestatie.toUpperCase(), numar: numar ? numar.data! : null });
  }
  // One code twice (a crafted body) would save whichever came last: refused instead.
  return new Set(pairs.map((p) => p.cod_op_service)).size === pairs.length ? pairs : null;
}
