import { AppError } from '../errors';
import { Transform, type Readable } from 'node:stream';
import { isBlank, type CellValue } from '../domain/import-cells';
import { collectXml } from './xml';

/**
 * Merged ranges a sheet may declare, per data row the file may hold: a visit of two operations
 * with five columns merged down is 2.5 per row, far below. Past it the file is refused.
 */
const MERGES_PER_ROW = 5;
/** So that a deployment with a small row limit still reads the merged titles and headers of a sheet. */
const MIN_MERGES = 1_000;

/** The most merged ranges one sheet of a file read under `maxRows` may declare. */
export function mergeLimit(maxRows: number): number {
  return Math.max(MIN_MERGES, maxRows * MERGES_PER_ROW);
}

// Spreadsheet bounds (Excel's): a reference past them is not a cell.
const MAX_SHEET_ROW = 1_048_576;
const MAX_SHEET_COLUMN = 16_384;

/**
 * One corner of a range (`B12`, `$B$12`, lower case too) read from `at`: its 0-based column,
 * its row and where it ends; null past the sheet's bounds or when it is not a cell reference.
 */
function corner(ref: string, at: number): { column: number; row: number; end: number } | null {
  let i = at;
  if (ref.charCodeAt(i) === 36) i++;
  let column = 0;
  for (let letters = 0; ; i++, letters++) {
    const code = ref.charCodeAt(i) & ~0x20;
    if (code < 65 || code > 90) {
      if (letters === 0) return null;
      break;
    }
    column = column * 26 + (code - 64);
    if (column > MAX_SHEET_COLUMN) return null;
  }
  if (ref.charCodeAt(i) === 36) i++;
  let row = 0;
  for (let digits = 0; ; i++, digits++) {
    const code = ref.charCodeAt(i);
    if (!(code >= 48 && code <= 57)) {
      if (digits === 0) return null;
      break;
    }
    row = row * 10 + (code - 48);
    if (row > MAX_SHEET_ROW) return null;
  }
  return row < 1 ? null : { column: column - 1, row, end: i };
}

/** `A2:C4` (or one cell, `A2`) → its first column and rows; null when it is not a range of the sheet. */
function parseRange(ref: string): { column: number; top: number; bottom: number } | null {
  const from = corner(ref, 0);
  if (!from) return null;
  if (from.end === ref.length) return { column: from.column, top: from.row, bottom: from.row };
  if (ref.charCodeAt(from.end) !== 58) return null;
  const to = corner(ref, from.end + 1);
  if (!to || to.end !== ref.length) return null;
  return { column: Math.min(from.column, to.column), top: Math.min(from.row, to.row), bottom: Math.max(from.row, to.row) };
}

/** Bytes kept back between two chunks so that a tag split across them is still found (`<x:sheetData` with a prefix up to ~50 characters). */
const CARRY = 64;
/** A `<sheetData>` tag longer than this is not one a spreadsheet application writes. */
const MAX_TAG = 4096;
const NAME = Buffer.from('sheetData');
const isNameByte = (b: number) => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x5f || b === 0x2d || b === 0x2e;
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/**
 * Where a `sheetData` tag starts (its `<`), as `<sheetData`, `<x:sheetData` (or `</…` when
 * `closing`), searching `buffer` from `from`; -1 when there is none (yet).
 */
function findTag(buffer: Buffer, from: number, closing: boolean): number {
  for (let at = buffer.indexOf(NAME, from); at !== -1; at = buffer.indexOf(NAME, at + 1)) {
    const after = buffer[at + NAME.length];
    if (after !== undefined && after !== 0x3e && after !== 0x2f && !isSpace(after)) continue;
    let i = at - 1;
    if (buffer[i] === 0x3a) {
      i -= 1;
      while (i >= 0 && isNameByte(buffer[i]!)) i -= 1;
    }
    if (closing) {
      if (buffer[i] === 0x2f && buffer[i - 1] === 0x3c) return i - 1;
    } else if (buffer[i] === 0x3c) return i;
  }
  return -1;
}

/**
 * A sheet part's bytes without its `<sheetData>` element, found by byte search rather than by
 * the XML parser: the rows are inflated but never parsed, so what surrounds them (the merged
 * ranges come after the rows) is read for a fraction of the rows' cost. The rest is well-formed
 * XML for the parser.
 */
function withoutRows(part: string, source: Readable): Readable {
  let state: 'head' | 'rows' | 'tail' = 'head';
  let pending = Buffer.alloc(0);
  const out = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let buffer = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      pending = Buffer.alloc(0);
      for (;;) {
        if (state === 'tail') {
          this.push(buffer);
          break;
        }
        const lt = findTag(buffer, 0, state === 'rows');
        const gt = lt === -1 ? -1 : buffer.indexOf(0x3e, lt);
        if (gt === -1) {
          // A tag that never ends would be held, and copied again with each chunk, up to the whole part.
          if (lt !== -1 && buffer.length - lt > MAX_TAG) return done(new AppError('IMPORT_FISIER_CORUPT', `Partea ${part} nu este XML valid.`));
          // Not (wholly) here: keep the end, which may hold the start of the tag.
          const keep = lt === -1 ? Math.max(0, buffer.length - CARRY) : lt;
          if (state === 'head') this.push(buffer.subarray(0, keep));
          pending = Buffer.from(buffer.subarray(keep));
          break;
        }
        if (state === 'head') {
          const selfClosing = buffer[gt - 1] === 0x2f;
          this.push(buffer.subarray(0, selfClosing ? gt + 1 : lt));
          state = selfClosing ? 'tail' : 'rows';
        } else state = 'tail';
        buffer = buffer.subarray(gt + 1);
      }
      done();
    },
    flush(done) {
      // Ends inside the rows: nothing more is given, and the parser reports the part as damaged.
      if (state === 'head') this.push(pending);
      done();
    },
  });
  source.on('error', (error) => out.destroy(error));
  out.on('close', () => source.destroy());
  return source.pipe(out);
}

/** The vertically merged ranges of a sheet that fill cells, by their first column, in the order of their first row. */
export interface MergedRanges {
  top: Int32Array;
  bottom: Int32Array;
  column: Int32Array;
  length: number;
}

/**
 * Reads the `<mergeCell ref>` of a sheet part (a pass over the part that skips its rows). Only
 * ranges over two rows or more matter, and only their first column (see `FillDown`); one whose
 * first column is past `maxColumns` can hold no value the reader accepts. More than `limit`
 * ranges refuse the file. Two ranges whose first column overlaps (invalid: Excel repairs such a
 * file) keep the one that starts higher.
 */
export async function readMergedRanges(part: string, sheetName: string, source: Readable, maxColumns: number, limit: number): Promise<MergedRanges | null> {
  let count = 0;
  let kept = 0;
  let top = new Int32Array(64);
  let bottom = new Int32Array(64);
  let column = new Int32Array(64);
  await collectXml<never>(part, withoutRows(part, source), () => ({
    open(name, a) {
      if (name !== 'mergeCell') return;
      count += 1;
      if (count > limit) {
        throw new AppError('IMPORT_PREA_MULTE_CELULE_UNITE', `Foaia „${sheetName}” are peste ${limit} de zone de celule unite (îmbinate).`);
      }
      const range = parseRange((a.ref ?? '').trim());
      if (!range || range.bottom === range.top || range.column >= maxColumns) return;
      if (kept === top.length) {
        const grow = (from: Int32Array) => {
          const to = new Int32Array(from.length * 2);
          to.set(from);
          return to;
        };
        top = grow(top);
        bottom = grow(bottom);
        column = grow(column);
      }
      top[kept] = range.top;
      bottom[kept] = range.bottom;
      column[kept] = range.column;
      kept += 1;
    },
    text() {},
    close() {},
  }));
  if (kept === 0) return null;
  const before = (a: number, b: number) => top[a]! - top[b]! || column[a]! - column[b]!;
  const order = Array.from({ length: kept }, (_, i) => i);
  // Writers list ranges as they merged them, usually top to bottom: sorting is then not needed.
  let sorted = true;
  for (let i = 1; i < kept && sorted; i++) sorted = before(i - 1, i) <= 0;
  if (!sorted) order.sort(before);
  const lastBottom = new Int32Array(maxColumns);
  const ranges: MergedRanges = { top: new Int32Array(kept), bottom: new Int32Array(kept), column: new Int32Array(kept), length: 0 };
  for (const i of order) {
    if (top[i]! <= lastBottom[column[i]!]!) continue;
    lastBottom[column[i]!] = bottom[i]!;
    ranges.top[ranges.length] = top[i]!;
    ranges.bottom[ranges.length] = bottom[i]!;
    ranges.column[ranges.length] = column[i]!;
    ranges.length += 1;
  }
  return ranges;
}

/**
 * Gives the rows of vertically merged ranges the value of the range's top-left cell, as the
 * rows stream: a continuation row of a visit gets its VIN, plate, date and odometer. Only the
 * range's first column is filled: a title merged across A1:H1 stays one filled cell (a title
 * above the header) and a header cell spanning two columns does not make two columns of the
 * same name. A row with no value of its own (a spacer inside a merged block) is left blank,
 * so it is not read as one more visit. At most one range is active per column (overlaps are
 * dropped when read), so a row costs at most one look per column, however tall the ranges.
 */
export class FillDown {
  private next = 0;
  private readonly active: number[] = [];
  private readonly until = new Map<number, number>();
  private readonly values = new Map<number, CellValue>();

  constructor(private readonly ranges: MergedRanges) {}

  /** `cells` of row `line` (sparse, as the reader builds them), filled in place. */
  apply(line: number, cells: CellValue[]): void {
    const { active, until, values } = this;
    for (let i = active.length - 1; i >= 0; i--) {
      if (until.get(active[i]!)! < line) {
        until.delete(active[i]!);
        values.delete(active[i]!);
        active.splice(i, 1);
      }
    }
    if (active.length > 0 && cells.some((c) => !isBlank(c))) {
      for (const column of active) cells[column] = values.get(column)!;
    }
    const { top, bottom, column } = this.ranges;
    for (; this.next < this.ranges.length && top[this.next]! <= line; this.next++) {
      const c = column[this.next]!;
      const value = cells[c];
      if (top[this.next] !== line || value === undefined || isBlank(value)) continue;
      if (!values.has(c)) active.push(c);
      until.set(c, bottom[this.next]!);
      values.set(c, value);
    }
  }
}
