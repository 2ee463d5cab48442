// How what a workshop's file holds or a clerk types becomes the values of a submission: the one
// reader of VINs, plates, dates and odometers for a file's cells, the import's cell edits and the
// submission panel's correction (and, for odometer text, the API's canonicalisation). Pure: the
// same cell always gives the same value, at preview and at commit.

/** A cell as the readers hand it over: xlsx keeps numbers and booleans, csv only has text. */
export type CellValue = string | number | boolean | null;

const DAY_MS = 24 * 60 * 60 * 1000;
// Day 0 of the 1900 date system as Excel counts it (it treats 1900 as a leap year).
const EXCEL_EPOCH_1900 = Date.UTC(1899, 11, 30);
const EXCEL_EPOCH_1904 = Date.UTC(1904, 0, 1);
const MAX_SERIAL = 2_958_465; // 9999-12-31

export function isBlank(value: CellValue | undefined): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** The text of a cell, trimmed; a number prints as JavaScript prints it (154200.0 is `154200`). */
export function cellText(value: CellValue | undefined): string {
  if (value === null || value === undefined) return '';
  return String(value).trim();
}

function iso(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date.toISOString().slice(0, 10);
}

/** An Excel date serial (time of day ignored) as YYYY-MM-DD. */
export function serialToIsoDate(serial: number, date1904 = false): string | null {
  if (!Number.isFinite(serial) || serial < 1 || serial > MAX_SERIAL) return null;
  let days = Math.floor(serial);
  // Serials before 1900-03-01 count the phantom 1900-02-29 one day less.
  if (!date1904 && days < 61) days += 1;
  return new Date((date1904 ? EXCEL_EPOCH_1904 : EXCEL_EPOCH_1900) + days * DAY_MS).toISOString().slice(0, 10);
}

const DAY_FIRST = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})(?:[ T,]+\d{1,2}:\d{2}(?::\d{2})?)?\.?$/;
const YEAR_FIRST = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const SERIAL_TEXT = /^\d{5}(?:\.\d+)?$/;

/**
 * `dd.mm.yyyy` (also with `/` or `-`, a two-digit year, or a time after it), `yyyy-mm-dd`,
 * and Excel serials (as numbers or as five-digit text) become YYYY-MM-DD. Anything else is
 * returned trimmed, for validation to report as it is.
 */
export function parseDateCell(value: CellValue | undefined, date1904 = false): string {
  if (typeof value === 'number') return serialToIsoDate(value, date1904) ?? String(value);
  const text = cellText(value);
  const dayFirst = DAY_FIRST.exec(text);
  if (dayFirst) {
    const year = dayFirst[3]!.length === 2 ? 2000 + Number(dayFirst[3]) : Number(dayFirst[3]);
    return iso(year, Number(dayFirst[2]), Number(dayFirst[1])) ?? text;
  }
  const yearFirst = YEAR_FIRST.exec(text);
  if (yearFirst) return iso(Number(yearFirst[1]), Number(yearFirst[2]), Number(yearFirst[3])) ?? text;
  if (SERIAL_TEXT.test(text)) return serialToIsoDate(Number(text), date1904) ?? text;
  return text;
}

const THOUSANDS_DOT = /^\d{1,3}(?:\.\d{3})+(?:,\d+)?$/; // 154.200 or 154.200,5 (Romanian)
const THOUSANDS_COMMA = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/; // 154,200 or 154,200.5
const DECIMAL_COMMA = /^\d+,\d+$/; // 154200,0

/**
 * An odometer cell: numbers stay numbers; text loses spaces and a `km` suffix, and Romanian
 * (`154.200`, `154200,0`) or English (`154,200`) separators are read as such: a dot or a comma
 * followed by groups of exactly three digits separates thousands (in Romanian `87.400` is
 * eighty-seven thousand four hundred), any other one is a decimal point. A fraction is kept as
 * read (`87,4` is 87.4), never rounded: validation refuses an odometer that is not whole
 * kilometres. The result goes through the API's own canonicalisation, which turns `154200.0`
 * into 154200.
 */
export function parseOdometerCell(value: CellValue | undefined): number | string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return String(value);
  const text = value.replace(/[\s\u00a0\u202f]+/g, '').replace(/km$/i, '');
  if (text === '') return null;
  if (THOUSANDS_DOT.test(text)) return text.replace(/\./g, '').replace(',', '.');
  if (THOUSANDS_COMMA.test(text)) return text.replace(/,/g, '');
  if (DECIMAL_COMMA.test(text)) return text.replace(',', '.');
  return text;
}

/**
 * A fractional odometer (held, never sent) written as a Romanian clerk writes it and so that
 * this reader reads it back as the same fraction, to be refused again rather than taken for
 * another number: a decimal comma, and a 0 after three decimals that follow at most three
 * digits ("87,456" reads as 87456 km; "87,4560" is 87.456). A form filled with it and saved
 * unchanged never turns 87.456 into 87456 km.
 */
export function odometerText(value: number): string {
  const text = String(value).replace('.', ',');
  return /^\d{1,3},\d{3}$/.test(text) ? `${text}0` : text;
}

/** A VIN as printed or typed in groups (`WDB 123456 1A654321`, `WDB-1234561A.654321`) is the VIN without them. */
export function parseVinCell(value: CellValue | undefined): string {
  return cellText(value).replace(/[\s\u00a0\u202f.\-–—_]+/g, '');
}

/** A plate as printed (`B-123-ABC`, `B 123 ABC`) is the registry's `B123ABC`. */
export function parsePlateCell(value: CellValue | undefined): string {
  return cellText(value).replace(/[\s\u00a0\-–]+/g, '');
}

/** Several operation codes in one cell, separated by `;` or `,` (codes never hold either). */
export function splitCodes(value: CellValue | undefined, max = Number.POSITIVE_INFINITY): string[] {
  const codes: string[] = [];
  if (max <= 0) return codes;
  // Stops at `max`: a cell of 32,767 characters is 16,000 one-letter codes, split whole at every reading.
  for (const match of cellText(value).matchAll(CODE)) {
    const code = match[0].trim();
    if (code !== '' && codes.push(code) >= max) break;
  }
  return codes;
}
const CODE = /[^;,]+/g;

/**
 * The names that go with `count` codes, paired by position. One code takes the whole cell
 * (a name may contain commas); several codes split the names on `;`, or on `,` when that
 * gives exactly one name per code. A code without a name gets an empty one.
 */
export function splitNames(value: CellValue | undefined, count: number): string[] {
  const text = cellText(value);
  if (count <= 1) return [text];
  const bySemicolon = text.split(';').map((n) => n.trim());
  const byComma = text.split(',').map((n) => n.trim());
  const names = bySemicolon.length === count || byComma.length !== count ? bySemicolon : byComma;
  return Array.from({ length: count }, (_, i) => names[i] ?? '');
}
