import { parse } from 'csv-parse/sync';

/** The bytes of a response, and the text after a UTF-8 BOM (which must be there). */
export async function exportBytes(res: Response): Promise<{ bom: boolean; text: string }> {
  const bytes = Buffer.from(await res.arrayBuffer());
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { bom, text: bytes.subarray(bom ? 3 : 0).toString('utf8') };
}

/** An export read as a Romanian Excel reads it: `;` between quoted fields, CRLF. */
export function readSemicolonCsv(text: string): string[][] {
  return parse(text, { delimiter: ';', record_delimiter: '\r\n', relax_column_count: true }) as string[][];
}

/** A trigger (OWASP: = + - @ tab CR, and full-width forms) at a field's start, after spaces or quotes. */
export const TRIGGER_AT_START = /^[ \u00a0"]*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20]/;

/** Every field any reader could make of `text`: naive splits and csv-parse, with `;` and `,`. */
export function fieldsUnderEveryReader(text: string): string[] {
  const fields: string[] = [];
  for (const separator of [';', ',', '\t']) {
    for (const line of text.split(/\r\n|\n|\r/)) fields.push(...line.split(separator));
  }
  const semicolon = readSemicolonCsv(text);
  fields.push(...semicolon.flat());
  // A `;` file under a `,` reader: its quotes do not line up with that separator, so read them as text.
  const comma = parse(text, { delimiter: ',', quote: false, relax_column_count: true }) as string[][];
  fields.push(...comma.flat());
  // And every cell as a `;` reader hands it to the sheet, split again on any separator.
  for (const cell of semicolon.flat()) fields.push(...cell.split(/[,;\t\r\n]/));
  return fields;
}

/** Cells an attacker would put in a workshop's file or a submission's text. */
export const HOSTILE = [
  'X;=1+1;',
  "a,=cmd|' /C calc'!A0",
  '@SUM(1)',
  '\t=1',
  '-2+3',
  '+1',
  '=1',
  'a\n=1',
  'a\r\n=2',
  'a\r=3',
  'a\t@x',
  ' =1+1',
  'x; =1',
  'x,"=1"',
  'x;"=HYPERLINK(""http://x"")"',
  '\r=1',
  '＝1+1',
  'a;＋1',
  'a,－1',
  '＠SUM(1)',
  'ok;-1',
  '=',
  ';;=;,=,\t=\n=',
  "'=1",
];
