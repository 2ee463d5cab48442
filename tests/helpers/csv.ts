import { parse } from 'csv-parse/sync';

/** The bytes of a response, and the text after a UTF-8 BOM (which must be there). */
export async function exportBytes(res: Response): Promise<{ bom: boolean; text: string }> {
  const bytes = Buffer.from(await res.arrayBuffer());
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  return { bom, text: bytes.subarray(bom ? 3 : 0).toString('utf8') };
}

/** An export read as a Romanian Excel reads it: `;` between quoted fields, CRLF. */
export function readSemicolonCsv(text: string): string[][] {
  return parse(text, { delimiter: ';', record_delimiter: '\r\n' }) as string[][];
}
