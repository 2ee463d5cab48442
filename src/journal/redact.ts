import { replaceUnstorable } from '../domain/text';

// The one place that decides what of an event may be written to the journal.

const SECRET_KEY = /pass|parol|token|secret|authorization|api[-_]?key|cookie|b64image|reg_credentials|creds|csrf/i;
const VIN_KEY = /^vin$/i;
const PLATE_KEY = /^(nrInm|nrInmatriculare|nr_inm)$/i;
const VIN_IN_TEXT = /\b[A-HJ-NPR-Z0-9]{17}\b/g;
const API_KEY_IN_TEXT = /\bgw_[A-Za-z0-9_-]{10,}/g;
const BEARER_IN_TEXT = /Bearer\s+[A-Za-z0-9._~+/=-]+/gi;
// A query's parameters, as a driver's message lists them ("Failed query: … params: …").
const PARAMS_IN_TEXT = /\bparams:[\s\S]*$/;
export const REDACTED = '[redactat]';

/** `WDB1234561A654321` → `WDB********654321`: enough to find a record, not enough to identify a car. */
export function maskVin(vin: string): string {
  if (vin.length <= 9) return '*'.repeat(vin.length);
  return vin.slice(0, 3) + '*'.repeat(vin.length - 9) + vin.slice(-6);
}

export function maskPlate(plate: string): string {
  return plate.length <= 2 ? '*'.repeat(plate.length) : plate.slice(0, 2) + '*'.repeat(plate.length - 2);
}

function redactText(text: string): string {
  return replaceUnstorable(text)
    .replace(PARAMS_IN_TEXT, `params: ${REDACTED}`)
    .replace(BEARER_IN_TEXT, `Bearer ${REDACTED}`)
    .replace(API_KEY_IN_TEXT, REDACTED)
    .replace(VIN_IN_TEXT, maskVin);
}

export function redact(value: unknown, key = '', depth = 0): unknown {
  if (depth > 8) return REDACTED;
  if (key && SECRET_KEY.test(key)) return value === null || value === undefined ? value : REDACTED;
  if (typeof value === 'string') {
    if (VIN_KEY.test(key)) return maskVin(replaceUnstorable(value));
    if (PLATE_KEY.test(key)) return maskPlate(replaceUnstorable(value));
    return redactText(value.length > 2000 ? `${value.slice(0, 2000)}…` : value);
  }
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => redact(v, '', depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[replaceUnstorable(k)] = redact(v, k, depth + 1);
    return out;
  }
  return value;
}
