import { contentError, type ContentError } from '../errors';
import { parseDateCell, parseOdometerCell, parsePlateCell, parseVinCell, splitCodes, splitNames, type CellValue } from './import-cells';
import { IMPORT_FIELDS, type ColumnMapping, type ImportField } from './import-header';
import type { PrestatieInput, SubmissionInput } from './submission-input';
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
 * A cell holding a character that PostgreSQL cannot store (a NUL, a lone surrogate) holds its
 * row as needs_data, naming the cell; the value goes on with the character replaced, so the
 * row can still be previewed, stored as held and exported.
 */
export function storableValues(values: FieldValues, mapping: ColumnMapping): { values: FieldValues; erori: ContentError[] } {
  let clean: FieldValues | null = null;
  const erori: ContentError[] = [];
  for (const [field, value] of Object.entries(values) as Array<[ImportField, CellValue]>) {
    if (typeof value !== 'string' || !hasUnstorableChar(value)) continue;
    clean ??= { ...values };
    clean[field] = replaceUnstorable(value);
    const column = mapping[field];
    const where = column === undefined ? `Valoarea câmpului ${field}` : `Celula din coloana ${column + 1} (${field})`;
    erori.push(contentError('TEXT_NEPERMIS', SUBMISSION_FIELD[field], `${where} conține un caracter nepermis (NUL sau un surogat UTF-16 fără pereche).`));
  }
  return { values: clean ?? values, erori };
}

function items(values: FieldValues): PrestatieInput[] {
  const internal = splitCodes(values.cod_op_service);
  const direct = splitCodes(values.cod_prestatie);
  // Names describe the workshop's own codes; a file with registry codes only may name those.
  const named = internal.length > 0 ? internal.length : direct.length;
  const names = splitNames(values.denumire_op, named);
  return [
    ...direct.map((cod_prestatie, i) => (internal.length === 0 && names[i] ? { cod_prestatie, denumire: names[i] } : { cod_prestatie })),
    ...internal.map((cod_op_service, i) => ({ cod_op_service, denumire: names[i] ?? '' })),
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
