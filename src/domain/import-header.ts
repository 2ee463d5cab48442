import { createHash } from 'node:crypto';
import { CmpStr } from 'cmpstr';
import { normalizeText, replaceUnstorable } from './text';

/** The canonical fields a file column can be mapped to (the spec's names). */
export const IMPORT_FIELDS = ['vin', 'nrInm', 'dataPrestatie', 'odometruInitial', 'odometruFinal', 'cod_op_service', 'denumire_op', 'cod_prestatie'] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

/** Field → 0-based column index of the file header. Unmapped fields are absent. */
export type ColumnMapping = Partial<Record<ImportField, number>>;

/** Without these a row can never be valid, so the preview names them when they are unmapped. */
export const REQUIRED_FIELDS: readonly ImportField[] = ['vin', 'nrInm', 'dataPrestatie', 'odometruFinal'];

// How workshop software names these columns, normalised (lower case, no diacritics).
const SYNONYMS: Record<ImportField, readonly string[]> = {
  vin: ['vin', 'serie sasiu', 'serie de sasiu', 'nr sasiu', 'numar sasiu', 'serie caroserie', 'cod vin', 'numar identificare vehicul', 'sasiu'],
  nrInm: ['nrinm', 'nr inm', 'nr inmatriculare', 'numar inmatriculare', 'numar de inmatriculare', 'inmatriculare', 'nr auto', 'numar auto', 'placuta'],
  dataPrestatie: ['dataprestatie', 'data prestatie', 'data prestatiei', 'data', 'data service', 'data interventie', 'data lucrare', 'data reparatie', 'data efectuare'],
  odometruInitial: ['odometruinitial', 'odometru initial', 'km intrare', 'kilometraj intrare', 'kilometraj initial', 'km initial', 'km la intrare'],
  odometruFinal: ['odometrufinal', 'odometru final', 'odometru', 'km iesire', 'kilometraj', 'kilometraj final', 'kilometraj iesire', 'km final', 'km', 'km la iesire'],
  cod_op_service: ['cod op service', 'cod operatie', 'cod operatii', 'cod op', 'cod operatiune', 'cod lucrare', 'cod manopera', 'cod intern', 'coduri operatii'],
  denumire_op: ['denumire op', 'denumire operatie', 'denumire operatii', 'operatie', 'operatii', 'denumire', 'descriere', 'descriere operatie', 'lucrare', 'lucrari', 'manopera'],
  cod_prestatie: ['cod prestatie', 'cod prestatii', 'cod registru', 'cod reg', 'cod rar'],
};

/** Below this similarity a header name is not suggested for a field. */
const MATCH_THRESHOLD = 0.8;
const cmp = CmpStr.create().setMetric('levenshtein');

/** Header text as compared: lower case, no diacritics, punctuation as spaces. */
export function headerKey(text: string): string {
  return normalizeText(text.replace(/[_./\\()[\]:#°-]+/g, ' '));
}

/**
 * Exact name 1; a known name contained word for word ("serie sasiu vin" holds "vin") a bit
 * above the threshold, more the more of the header it covers; otherwise edit similarity, which
 * is only computed where the lengths leave it a chance: an edit similarity is at most
 * 1 − (length difference ÷ longer length), and a header's every column against every name took
 * the upload's event loop 5–15 ms. Below the threshold, the score is 0.
 */
function similarity(key: string, name: string): number {
  if (key === name) return 1;
  if (` ${key} `.includes(` ${name} `)) return MATCH_THRESHOLD + 0.15 * (name.length / key.length);
  const longer = Math.max(key.length, name.length);
  if (1 - Math.abs(key.length - name.length) / longer < MATCH_THRESHOLD) return 0;
  const score = cmp.compare(key, name) as number;
  return score >= MATCH_THRESHOLD ? score : 0;
}

/** The best score of a header cell (as `headerKey` reads it) against a field's names. */
function fieldScore(key: string, field: ImportField): number {
  if (!key) return 0;
  return Math.max(...SYNONYMS[field].map((name) => similarity(key, name)));
}

/**
 * Fuzzy suggestion: every (column, field) pair above the threshold, best first, each column
 * and each field used once. Ties go to the leftmost column, as files list fields in order.
 */
export function suggestMapping(header: readonly string[], seed: ColumnMapping = {}): ColumnMapping {
  const mapping: ColumnMapping = { ...seed };
  const usedColumns = new Set(Object.values(mapping));
  const pairs: Array<{ field: ImportField; column: number; score: number }> = [];
  header.forEach((text, column) => {
    const key = headerKey(text);
    for (const field of IMPORT_FIELDS) {
      const score = fieldScore(key, field);
      if (score >= MATCH_THRESHOLD) pairs.push({ field, column, score });
    }
  });
  pairs.sort((a, b) => b.score - a.score || a.column - b.column);
  for (const { field, column } of pairs) {
    if (mapping[field] !== undefined || usedColumns.has(column)) continue;
    mapping[field] = column;
    usedColumns.add(column);
  }
  return mapping;
}

/**
 * The signature of a header: every column, in order, compared as `headerKey` does. Two files
 * share a saved mapping only when their full headers agree, not merely the mapped columns.
 */
export function headerSignature(header: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify(header.map(headerKey)))
    .digest('hex');
}

export interface HeaderDrift {
  saved_signature: string;
  columns_missing: string[];
  columns_new: string[];
}

/** What changed between the header a mapping was saved for and this file's header. */
export function headerDrift(savedHeader: readonly string[], savedSignature: string, header: readonly string[]): HeaderDrift {
  const now = new Set(header.map(headerKey));
  const before = new Set(savedHeader.map(headerKey));
  return {
    saved_signature: savedSignature,
    columns_missing: savedHeader.filter((h) => !now.has(headerKey(h))),
    columns_new: header.filter((h) => !before.has(headerKey(h))),
  };
}

/**
 * A saved mapping carried over to a drifted header: a field keeps its column when a column
 * of the same name still exists; the rest is suggested again.
 */
export function carryOverMapping(savedHeader: readonly string[], saved: ColumnMapping, header: readonly string[]): ColumnMapping {
  const byName = new Map<string, number>();
  header.forEach((h, i) => {
    if (!byName.has(headerKey(h))) byName.set(headerKey(h), i);
  });
  const seed: ColumnMapping = {};
  for (const field of IMPORT_FIELDS) {
    const column = saved[field];
    const name = column === undefined ? undefined : savedHeader[column];
    const now = name === undefined ? undefined : byName.get(headerKey(name));
    if (now !== undefined) seed[field] = now;
  }
  return suggestMapping(header, seed);
}

/** Reads a stored mapping defensively: unknown fields and out-of-range columns are dropped. */
export function readColumnMapping(stored: unknown, width: number): ColumnMapping {
  const mapping: ColumnMapping = {};
  if (!stored || typeof stored !== 'object') return mapping;
  for (const field of IMPORT_FIELDS) {
    const column = (stored as Record<string, unknown>)[field];
    if (typeof column === 'number' && Number.isInteger(column) && column >= 0 && column < width) mapping[field] = column;
  }
  return mapping;
}

const VIN_LIKE = /^[A-HJ-NPR-Z0-9]{17}$/i;
const DATE_LIKE = /^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}/;

/**
 * How a sheet's first non-blank rows are read: a row with fewer than two filled cells is a
 * title above the table; a row holding numbers, VINs or dates is data (so the file has no
 * header); anything else is the header.
 */
export function classifyLeadingRow(cells: ReadonlyArray<string | number | boolean | null>): 'title' | 'data' | 'header' {
  const filled = cells.filter((c) => c !== null && String(c).trim() !== '');
  if (filled.length < 2) return 'title';
  const dataLike = filled.some((c) => typeof c !== 'string' || VIN_LIKE.test(c.trim()) || DATE_LIKE.test(c.trim()) || /^-?\d+([.,]\d+)?$/.test(c.trim()));
  return dataLike ? 'data' : 'header';
}

/** Header cells as text, without the empty cells past the last named column. */
export function headerCells(cells: ReadonlyArray<string | number | boolean | null>): string[] {
  // A header is stored as labels: a character no text column can store is replaced.
  const text = cells.map((c) => (c === null ? '' : replaceUnstorable(String(c).trim())));
  let width = text.length;
  while (width > 0 && text[width - 1] === '') width -= 1;
  return text.slice(0, width);
}
