import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { itemCode, type CanonicalItem } from '../../domain/canonical';
import type { RowVerdict } from './rows';

/**
 * What a row's classification leaves behind in the plain columns of `import_rows`: enough
 * for the preview's states, counts, `rows_hash` and operations to map, and for the commit
 * gate, without decrypting the row. Nothing personal: no VIN, no plate (the VIN only as a
 * keyed HMAC, to match odometer readings stored later).
 */
export interface RowFacts {
  rowIndex: number;
  verdict: RowVerdict['status'];
  key: string;
  legacyKey: string;
  /** Resolved registry codes, comma-joined as `rows_hash` hashes them. */
  codes: string;
  /** Unresolved workshop codes with the name the row gives them. */
  unmapped: Array<[string, string]>;
  /** The service date when it is a real date (the review and the date bound compare it). */
  dataPrestatie: string | null;
  odometruFinal: number | null;
  /**
   * What the verdict depends on beyond the row (a change of day is handled by `dataPrestatie`):
   * the codes of its items not resolved by the nomenclator, which a new or changed mapping of
   * that code may resolve differently; and whether an item fell through to the text rules.
   */
  clientCodes: string[];
  ruleBound: boolean;
  vinHmac: string | null;
  /** The service visit the line belongs to: VIN, date and odometers, under the batch's HMAC key. */
  visitKey: string | null;
  plateHmac: string | null;
  /** The only content error is an empty plate, which another line of the visit may give. */
  plateMissing: boolean;
  /** Why the line is no service (a total, a note, a repeated header), or null. */
  leftOut: string | null;
}

/** The nomenclator resolves a registry code whatever the account maps: such an item depends on nothing else. */
const byNomenclator = (item: CanonicalItem, resolved: ReadonlySet<string>) => item.cod_prestatie !== undefined && resolved.has(item.cod_prestatie);

/**
 * Lines of one file with the same VIN, date and odometer readings are one service visit (workshop
 * exports print one operation per line). A line missing any of them is a visit of its own.
 */
function visitKeyOf(content: RowVerdict['content'], dataPrestatie: string | null, hmac: (text: string) => string): string | null {
  const { vin, odometruFinal, odometruInitial } = content;
  if (!vin || dataPrestatie === null || odometruFinal === null || odometruFinal === '') return null;
  return hmac(`visit\u0000${vin}\u0000${dataPrestatie}\u0000${odometruFinal}\u0000${odometruInitial ?? ''}`);
}

export function rowFacts(rowIndex: number, derived: { verdict: RowVerdict; key: string; legacyKey: string; leftOut: string | null }, vinHmac: (vin: string) => string): RowFacts {
  const { content, prestatii, nemapate, erori, status } = derived.verdict;
  // One pass over the resolved items and one over the row's items (this runs for every row
  // of an upload): the same values the filter/map/Set chains gave.
  const fromNomenclator = new Set<string>();
  let notByRule = 0;
  let codes = '';
  for (let i = 0; i < prestatii.length; i++) {
    const p = prestatii[i]!;
    if (p.sursa === 'nomenclator') fromNomenclator.add(p.cod_client);
    if (p.sursa !== 'regula_text') notByRule += 1;
    codes += i === 0 ? p.cod_prestatie : `,${p.cod_prestatie}`;
  }
  const clientCodes = new Set<string>();
  for (const item of content.prestatii) {
    if (byNomenclator(item, fromNomenclator)) continue;
    const code = itemCode(item);
    if (code) clientCodes.add(code);
  }
  // Validation already judged it: DATA_INVALIDA is exactly "not a real YYYY-MM-DD".
  const dataPrestatie = erori.some((e) => e.cod === 'DATA_INVALIDA') ? null : content.dataPrestatie;
  return {
    rowIndex,
    verdict: status,
    key: derived.key,
    legacyKey: derived.legacyKey,
    codes,
    unmapped: nemapate.map((code) => [code, content.prestatii.find((i) => itemCode(i) === code)?.denumire ?? '']),
    dataPrestatie,
    // Non-finite (a 400-digit cell) compares like no reading at all, and JSON cannot carry it.
    odometruFinal: typeof content.odometruFinal === 'number' && Number.isFinite(content.odometruFinal) ? content.odometruFinal : null,
    clientCodes: [...clientCodes],
    // Items not resolved by the nomenclator or a mapping (by a rule, or not at all).
    ruleBound: content.prestatii.length > notByRule,
    vinHmac: content.vin ? vinHmac(content.vin) : null,
    visitKey: derived.leftOut === null ? visitKeyOf(content, dataPrestatie, vinHmac) : null,
    plateHmac: content.nrInm ? vinHmac(`plate\u0000${content.nrInm}`) : null,
    plateMissing: status === 'needs_data' && !content.nrInm && erori.every((e) => e.cod === 'NRINM_INVALID'),
    leftOut: derived.leftOut,
  };
}

/** The facts as `import_rows` holds them (null before a row was ever derived). */
export type StoredFacts = {
  verdict: string | null;
  idem_key: string | null;
  legacy_key: string | null;
  codes: string | null;
  unmapped: Array<[string, string]> | null;
  data_prestatie: string | null;
  odometru_final: number | null;
  client_codes: string[] | null;
  rule_bound: boolean | null;
  vin_hmac: string | null;
  visit_key: string | null;
  plate_hmac: string | null;
  plate_missing: boolean | null;
  left_out: string | null;
};

/** A row derived again to the same facts needs no write (most rows, when a mapping changes). */
export function sameFacts(stored: StoredFacts, f: RowFacts): boolean {
  return (
    stored.verdict === f.verdict &&
    stored.idem_key === f.key &&
    stored.legacy_key === f.legacyKey &&
    stored.codes === f.codes &&
    JSON.stringify(stored.unmapped ?? []) === JSON.stringify(f.unmapped) &&
    stored.data_prestatie === f.dataPrestatie &&
    (stored.odometru_final === null ? null : Number(stored.odometru_final)) === f.odometruFinal &&
    JSON.stringify(stored.client_codes ?? []) === JSON.stringify(f.clientCodes) &&
    stored.rule_bound === f.ruleBound &&
    stored.vin_hmac === f.vinHmac &&
    stored.visit_key === f.visitKey &&
    stored.plate_hmac === f.plateHmac &&
    stored.plate_missing === f.plateMissing &&
    stored.left_out === f.leftOut
  );
}

/** The columns `rowFacts` fills, in the order `copyFields` writes them. */
export const FACT_COLUMNS = [
  'verdict',
  'idem_key',
  'legacy_key',
  'codes',
  'unmapped',
  'data_prestatie',
  'odometru_final',
  'client_codes',
  'rule_bound',
  'vin_hmac',
  'visit_key',
  'plate_hmac',
  'plate_missing',
  'left_out',
] as const;

/** COPY text format: backslash, tab and line breaks escaped; `\N` is NULL. */
export const copyText = (value: string) =>
  // Most values need no escape: one test instead of four replaces (several fields per row).
  COPY_SPECIAL.test(value) ? value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : value;
const COPY_SPECIAL = /[\\\t\n\r]/;

/** The facts as COPY text fields, tab-joined, in FACT_COLUMNS order. */
export function copyFields(f: RowFacts): string {
  const unmapped = f.unmapped.length > 0 ? copyText(JSON.stringify(f.unmapped)) : '\\N';
  const odometer = f.odometruFinal === null ? '\\N' : String(f.odometruFinal);
  const clientCodes = copyText(JSON.stringify(f.clientCodes));
  return [
    f.verdict,
    f.key,
    f.legacyKey,
    copyText(f.codes),
    unmapped,
    f.dataPrestatie ?? '\\N',
    odometer,
    clientCodes,
    f.ruleBound ? 't' : 'f',
    f.vinHmac ?? '\\N',
    f.visitKey ?? '\\N',
    f.plateHmac ?? '\\N',
    f.plateMissing ? 't' : 'f',
    f.leftOut === null ? '\\N' : copyText(f.leftOut),
  ].join('\t');
}

const CHUNK = 2000;

/**
 * Rewrites the facts of re-derived rows. `resetReadings` when their VINs may have changed
 * (an edit, a new column mapping): the recorded readings are then looked up again.
 */
export async function writeFacts(exec: Executor, batchId: number, facts: readonly RowFacts[], resetReadings: boolean): Promise<void> {
  for (let i = 0; i < facts.length; i += CHUNK) {
    const rows = facts.slice(i, i + CHUNK).map((f) => ({ ...f, unmapped: f.unmapped.length > 0 ? f.unmapped : null }));
    await exec.execute(sql`
      UPDATE import_rows r SET verdict = v.verdict, idem_key = v.key, legacy_key = v."legacyKey", codes = v.codes, unmapped = v.unmapped,
        data_prestatie = v."dataPrestatie", odometru_final = v."odometruFinal", client_codes = v."clientCodes", rule_bound = v."ruleBound", vin_hmac = v."vinHmac",
        visit_key = v."visitKey", plate_hmac = v."plateHmac", plate_missing = v."plateMissing", left_out = v."leftOut",
        recorded_odometru = CASE WHEN ${resetReadings} THEN NULL ELSE r.recorded_odometru END,
        recorded_data = CASE WHEN ${resetReadings} THEN NULL ELSE r.recorded_data END
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v("rowIndex" int, verdict text, key text, "legacyKey" text, codes text, unmapped jsonb,
        "dataPrestatie" text, "odometruFinal" float8, "clientCodes" jsonb, "ruleBound" boolean, "vinHmac" text,
        "visitKey" text, "plateHmac" text, "plateMissing" boolean, "leftOut" text)
      WHERE r.batch_id = ${batchId} AND r.row_index = v."rowIndex"`);
  }
}
