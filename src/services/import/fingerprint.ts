import { createHash } from 'node:crypto';
import { todayInBucharest } from '../../domain/dates';
import type { ResolutionContext } from '../../domain/resolve';
import type { RowSetting } from './rows';

/**
 * What a batch's derived columns were computed against, stored in `import_batches.derived_fp`.
 * A part that differs says which rows to derive again (see `staleScope`).
 */
export interface Fingerprint {
  /** The column mapping and the file's date system: every row reads differently. */
  columns: string;
  /** Registry codes and names: any row may resolve differently. */
  nomenclator: string;
  /** The account's mappings (code → registry code): the rows with a code whose mapping changed. */
  mappings: Array<[string, string]>;
  /** The account's text rules: the rows with an item left to them. */
  textRules: string;
  /** Today in Bucharest: the rows dated after the earlier of the two days. */
  today: string;
  /** Submissions up to this id have been looked at for odometer readings. */
  seen: number;
}

const sha = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
const sorted = <T>(entries: Iterable<[string, T]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

export function fingerprint(setting: RowSetting, resolution: ResolutionContext, now: Date, seen: number): Fingerprint {
  return {
    columns: sha([sorted(Object.entries(setting.mapping)), setting.date1904]),
    nomenclator: sha(sorted(resolution.nomenclator)),
    mappings: sorted(resolution.mappings),
    textRules: sha([...resolution.textRules].sort((a, b) => a.id - b.id)),
    today: todayInBucharest(now),
    seen,
  };
}

const isPair = (p: unknown): p is [string, string] => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string';

/** Anything unreadable reads as no fingerprint: every row is derived again. */
export function readFingerprint(stored: unknown): Fingerprint | null {
  if (!stored || typeof stored !== 'object') return null;
  const s = stored as Record<string, unknown>;
  if (!Array.isArray(s.mappings) || !s.mappings.every(isPair)) return null;
  const text = (k: string) => (typeof s[k] === 'string' ? (s[k] as string) : '');
  return {
    columns: text('columns'),
    nomenclator: text('nomenclator'),
    mappings: s.mappings,
    textRules: text('textRules'),
    today: text('today'),
    seen: typeof s.seen === 'number' ? s.seen : 0,
  };
}

/** The codes whose mapping was added, removed or pointed elsewhere. */
function changedCodes(before: ReadonlyArray<[string, string]>, after: ReadonlyArray<[string, string]>): string[] {
  const old = new Map(before);
  const now = new Map(after);
  return [...new Set([...old.keys(), ...now.keys()])].filter((code) => old.get(code) !== now.get(code)).sort();
}

/** Which rows to derive again: none, all, or those matching the conditions. */
export type StaleScope = { kind: 'none' } | { kind: 'all' } | { kind: 'some'; codes: string[]; textRules: boolean; datedAfter: string | null };

export function staleScope(stored: Fingerprint | null, current: Fingerprint): StaleScope {
  if (!stored || stored.columns !== current.columns || stored.nomenclator !== current.nomenclator) return { kind: 'all' };
  const codes = changedCodes(stored.mappings, current.mappings);
  const textRules = stored.textRules !== current.textRules;
  // Only the bound "not after today" reads the date: a row dated after the earlier day may
  // pass or fail it differently now (the clock can also go back).
  const datedAfter = stored.today !== current.today ? (stored.today < current.today ? stored.today : current.today) : null;
  return codes.length > 0 || textRules || datedAfter !== null ? { kind: 'some', codes, textRules, datedAfter } : { kind: 'none' };
}
