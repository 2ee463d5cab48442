import type { PrestatieInput, SubmissionInput } from './submission-input';

/** A submission's content after canonicalisation: the form that is validated, hashed and stored. */
export interface CanonicalItem {
  cod_prestatie?: string;
  cod_op_service?: string;
  denumire: string;
}

export interface CanonicalContent {
  vin: string;
  nrInm: string;
  dataPrestatie: string;
  odometruInitial: number | string | null;
  odometruFinal: number | string | null;
  prestatii: CanonicalItem[];
  b64Image: string;
}

const NUMERIC = /^-?\d+(\.\d+)?$/;

/**
 * `154200`, `154200.0` and `"154200.0"` all become 154200 (spreadsheets coerce integers to
 * floats). A string that is not a number is kept, trimmed, for validation to report.
 */
export function canonicalOdometer(value: number | string | null | undefined): number | string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  const text = value
    .trim()
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
  if (text === '') return null;
  return NUMERIC.test(text) ? Number(text) : text;
}

export function canonicalItem(item: PrestatieInput): CanonicalItem {
  const denumire = (item.denumire ?? '').trim();
  if ('cod_prestatie' in item) return { cod_prestatie: item.cod_prestatie.trim().toUpperCase(), denumire };
  return { cod_op_service: item.cod_op_service.trim().toUpperCase(), denumire };
}

/** Canonicalisation comes before validation and before the idempotency key. */
export function canonicalize(input: Omit<SubmissionInput, 'reg_credentials' | 'on_unmapped_error'>): CanonicalContent {
  return {
    vin: input.vin.trim().toUpperCase(),
    nrInm: input.nrInm.trim().toUpperCase(),
    dataPrestatie: input.dataPrestatie.trim(),
    odometruInitial: canonicalOdometer(input.odometruInitial),
    odometruFinal: canonicalOdometer(input.odometruFinal),
    prestatii: input.prestatii.map(canonicalItem),
    // Line breaks inside base64 (MIME style) carry no content.
    b64Image: (input.b64Image ?? '').replace(/\s+/g, ''),
  };
}

/** The code an item is known by: the registry code it names, or the workshop's own code. */
export function itemCode(item: CanonicalItem): string {
  return item.cod_prestatie ?? item.cod_op_service ?? '';
}
