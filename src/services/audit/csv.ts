/**
 * CSV as a Romanian Excel opens it: UTF-8 with a BOM (else the diacritics are read as
 * Windows-1250), `;` between fields (the list separator of the Romanian locale), CRLF line
 * ends, every field quoted.
 *
 * Formulas (OWASP, "CSV Injection"): a reader splits a line on its own separator, which may
 * not be ours: a Romanian Excel splits on `;`, an English one on `,`, a paste on tab, and a
 * reader that ignores quotes splits inside a quoted field too. So a trigger character is
 * neutralised with a leading `'` not only at the start of a field, but wherever any reader
 * could start one: after every `,` `;` tab, CR or LF inside it (spaces and a `"` in between
 * do not protect). A leading `-` is neutralised too, even before digits: no exported column
 * holds a legitimate negative number (odometers are non-negative), and `-2+3` is a formula.
 */
export const CSV_BOM = '\ufeff';
export const CSV_SEPARATOR = ';';

// = + - @ tab CR, and their full-width forms, which some Excel versions read as formulas too.
const TRIGGER = '=+\\-@\\t\\r\\uff1d\\uff0b\\uff0d\\uff20';
const FIELD_START = new RegExp(`(?<=^|[,;\\t\\r\\n])(?=[ \\u00a0"]*[${TRIGGER}])`, 'g');

/** The text with a `'` wherever a reader, splitting on any separator, would start a field with a trigger. */
export function neutraliseFormulas(text: string): string {
  return text.replace(FIELD_START, "'");
}

/** One field, quoted, its quotes doubled, formulas neutralised. Null is an empty field. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '""';
  return `"${neutraliseFormulas(String(value)).replace(/"/g, '""')}"`;
}

export function csvLine(values: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${values.map(csvCell).join(CSV_SEPARATOR)}\r\n`;
}
