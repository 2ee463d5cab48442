import { contentError, type ContentError } from '../errors';
import { parseDateCell, parseOdometerCell, parsePlateCell, parseVinCell, splitCodes, splitNames, type CellValue } from './import-cells';
import { IMPORT_FIELDS, type ColumnMapping, type ImportField } from './import-header';
import { MAX_PRESTATII, TEXT_MAX, type PrestatieInput, type SubmissionInput } from './submission-input';
import { hasUnstorableChar, replaceUnstorable } from './text';

/** A staged row's values by canonical field, before they are read as a submission. */
export type FieldValues = Partial<Record<ImportField, CellValue>>;

/** What a file row becomes: the API's submission content, without the API-only fields. */
export type ImportedInput = Omit<SubmissionInput, 'reg_credentials' | 'on_unmapped_error' | 'b64Image'>;

export function mappedValues(cells: readonly CellValue[], mapping: ColumnMapping): FieldValues {
  const values: FieldValues = {};
  for (const field of IMPORT_FIELDS) {
    const column = mapping[field];
    if (column !== undefined) values[field] = cells[column] ?? null;
  }
  return values;
}

/**
 * The user's edits, applied last: a field in the override replaces the file's value. An
 * override holds only non-empty values (an empty edit removes the field from it).
 */
export function applyOverride(values: FieldValues, override: FieldValues): FieldValues {
  return { ...values, ...override };
}

/** Reads a decrypted override defensively: anything but a known field with a scalar value is ignored. */
export function readOverride(stored: unknown): FieldValues {
  const override: FieldValues = {};
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return override;
  for (const field of IMPORT_FIELDS) {
    const value = (stored as Record<string, unknown>)[field];
    if (typeof value === 'string' || typeof value === 'number') override[field] = value;
  }
  return override;
}

/** Edits merged into the stored override: an empty value (or null) clears that field. */
export function mergeOverride(current: FieldValues, edits: Partial<Record<ImportField, string | number | null>>): FieldValues {
  const next: FieldValues = { ...current };
  for (const [field, value] of Object.entries(edits) as Array<[ImportField, string | number | null]>) {
    if (value === null || (typeof value === 'string' && value.trim() === '')) delete next[field];
    else next[field] = value;
  }
  return next;
}

const SUBMISSION_FIELD: Record<ImportField, string> = {
  vin: 'vin',
  nrInm: 'nrInm',
  dataPrestatie: 'dataPrestatie',
  odometruInitial: 'odometruInitial',
  odometruFinal: 'odometruFinal',
  cod_op_service: 'prestatii',
  denumire_op: 'prestatii',
  cod_prestatie: 'prestatii',
};

/**
 * The API's shape bounds (submission-input.ts) a cell can exceed: the API refuses a longer value
 * with 422, so the import holds its row as needs_data and goes on with the value cut to the
 * bound, which is all that is stored (payload_json, the preview, the export).
 */
const FIELD_MAX: Partial<Record<ImportField, number>> = {
  vin: TEXT_MAX.vin,
  nrInm: TEXT_MAX.nrInm,
  dataPrestatie: TEXT_MAX.dataPrestatie,
  odometruInitial: TEXT_MAX.odometer,
  odometruFinal: TEXT_MAX.odometer,
};
const CODE_MAX = TEXT_MAX.code;
const NAME_MAX = TEXT_MAX.name;

/** The content errors found in a row's cells (not by `validate`): the commit carries them into each visit's verdict. */
export const CELL_ERROR_CODES: ReadonlySet<string> = new Set(['TEXT_NEPERMIS', 'TEXT_PREA_LUNG', 'PREA_MULTE_PRESTATII']);

/**
 * The operations' codes and names as the row pairs them, at most MAX_PRESTATII (the API's bound;
 * `tooMany` when the cells hold more): a cell of 32,767 characters of one-letter codes was 16,000
 * operations, each classified at every preview and repeated three times in its answer.
 */
function itemTexts(values: FieldValues) {
  const direct = splitCodes(values.cod_prestatie, MAX_PRESTATII + 1);
  const internal = splitCodes(values.cod_op_service, MAX_PRESTATII + 1 - direct.length);
  const tooMany = direct.length + internal.length > MAX_PRESTATII;
  if (tooMany) (internal.length > 0 ? internal : direct).pop();
  // Names describe the workshop's own codes; a file with registry codes only may name those.
  const named = internal.length > 0 ? internal.length : direct.length;
  return { internal, direct, tooMany, names: splitNames(values.denumire_op, named) };
}

const count = (n: number) => n.toLocaleString('ro-RO');

/** The text cut to `max` UTF-16 units, never between the two halves of a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * A cell holding a character that PostgreSQL cannot store (a NUL, a lone surrogate), or longer
 * than the API accepts for its field, holds its row as needs_data, naming the cell; the value
 * goes on with the character replaced or cut to the bound, so the row can still be previewed,
 * stored as held and exported.
 */
export function storableValues(values: FieldValues, mapping: ColumnMapping): { values: FieldValues; erori: ContentError[] } {
  let clean: FieldValues | null = null;
  const erori: ContentError[] = [];
  const where = (field: ImportField) => (mapping[field] === undefined ? `Valoarea câmpului ${field}` : `Celula din coloana ${mapping[field]! + 1} (${field})`);
  for (const [field, value] of Object.entries(values) as Array<[ImportField, CellValue]>) {
    if (typeof value !== 'string') continue;
    const max = FIELD_MAX[field];
    if (max !== undefined && value.length > max) {
      clean ??= { ...values };
      clean[field] = cut(value, max);
      erori.push(contentError('TEXT_PREA_LUNG', SUBMISSION_FIELD[field], `${where(field)} are ${count(value.length)} de caractere (cel mult ${max}).`));
    }
    if (!hasUnstorableChar(value)) continue;
    clean ??= { ...values };
    clean[field] = replaceUnstorable(clean[field] as string);
    erori.push(contentError('TEXT_NEPERMIS', SUBMISSION_FIELD[field], `${where(field)} conține un caracter nepermis (NUL sau un surogat UTF-16 fără pereche).`));
  }
  const { internal, direct, tooMany, names } = itemTexts(values);
  if (tooMany) {
    erori.push(contentError('PREA_MULTE_PRESTATII', 'prestatii', `Rândul are mai mult de ${MAX_PRESTATII} de operații; s-au păstrat primele ${MAX_PRESTATII}.`));
  }
  const longName = names.find((n) => n.length > NAME_MAX);
  if (longName !== undefined) {
    erori.push(
      contentError('TEXT_PREA_LUNG', 'prestatii', `Denumirea operației (${where('denumire_op').toLowerCase()}) are ${count(longName.length)} de caractere (cel mult ${NAME_MAX}).`),
    );
  }
  const longCode = [...internal, ...direct].find((c) => c.length > CODE_MAX);
  if (longCode !== undefined) {
    const field = internal.includes(longCode) ? 'cod_op_service' : 'cod_prestatie';
    erori.push(contentError('TEXT_PREA_LUNG', 'prestatii', `Codul operației (${where(field).toLowerCase()}) are ${count(longCode.length)} de caractere (cel mult ${CODE_MAX}).`));
  }
  return { values: clean ?? values, erori };
}

function items(values: FieldValues): PrestatieInput[] {
  const { internal, direct, names: all } = itemTexts(values);
  // Cut to the API's bounds: a longer one holds the row (storableValues) and is never stored whole.
  const names = all.map((n) => cut(n, NAME_MAX));
  const code = (c: string) => cut(c, CODE_MAX);
  return [
    ...direct.map((c, i) => (internal.length === 0 && names[i] ? { cod_prestatie: code(c), denumire: names[i] } : { cod_prestatie: code(c) })),
    ...internal.map((c, i) => ({ cod_op_service: code(c), denumire: names[i] ?? '' })),
  ];
}

/** The record's own fields as a person or a file wrote them, read by the one reader (import-cells). */
export type RecordFields = Pick<FieldValues, 'vin' | 'nrInm' | 'dataPrestatie' | 'odometruInitial' | 'odometruFinal'>;

/**
 * Dates, odometers, VINs and plates read the way spreadsheets and people write them; the import
 * (cells and edits) and the panel's correction both read through here, then through the API's
 * canonicalisation and validation.
 */
export function readRecordFields(values: RecordFields, options: { date1904?: boolean } = {}): Omit<ImportedInput, 'prestatii'> {
  return {
    vin: parseVinCell(values.vin),
    nrInm: parsePlateCell(values.nrInm),
    dataPrestatie: parseDateCell(values.dataPrestatie, options.date1904),
    odometruInitial: parseOdometerCell(values.odometruInitial),
    odometruFinal: parseOdometerCell(values.odometruFinal),
  };
}

/** One row's values as a submission's content. */
export function toSubmissionInput(values: FieldValues, options: { date1904?: boolean } = {}): ImportedInput {
  return { ...readRecordFields(values, options), prestatii: items(values) };
}
