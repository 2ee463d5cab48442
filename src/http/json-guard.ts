import { hasUnstorableChar } from '../domain/text';

// Checks on a JSON body that run before (scan) and after (walk) JSON.parse, so that no body
// can make the parser or the schema do work out of proportion to what the API accepts.

/** Deeper than any request schema needs (a submission's items are at depth 3). */
export const MAX_JSON_DEPTH = 8;
/** Values in one body: a submission with 200 items of three fields is about 800. */
export const MAX_JSON_VALUES = 10_000;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

export type ScanProblem = { kind: 'depth' | 'values'; offset: number };

/**
 * The offset of the quote that closes the string opened before `from` (one not escaped by an
 * odd run of backslashes), or the end. Found with Buffer's native search: a photo's 14 MB of
 * base64 walked byte by byte in JavaScript held the event loop 20–40 ms; searched, about 1.
 */
function stringEnd(bytes: Buffer, from: number): number {
  for (let at = from; ; at++) {
    at = bytes.indexOf(QUOTE, at);
    if (at < 0) return bytes.length;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * One linear pass over the bytes, outside strings: nesting depth and the number of values
 * (separators). Refusing here costs microseconds per kilobyte; parsing a hostile body first
 * blocked the event loop for seconds.
 */
export function scanJson(input: Uint8Array): ScanProblem | null {
  const bytes = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  let depth = 0;
  let values = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      i = stringEnd(bytes, i + 1);
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) return { kind: 'depth', offset: i };
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
    } else if (b === COMMA) {
      if (++values > MAX_JSON_VALUES) return { kind: 'values', offset: i };
    }
  }
  return null;
}

/**
 * The path of the first string (value or key) that PostgreSQL could not store: a NUL or a
 * lone surrogate. Run on what the schema let through, so a path names only the schema's keys.
 */
export function findUnstorable(value: unknown, path: Array<string | number> = []): Array<string | number> | null {
  if (typeof value === 'string') return hasUnstorableChar(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], [...path, i]);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (hasUnstorableChar(key)) return path;
      const found = findUnstorable(inner, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/** The byte offset V8 reports for a syntax error, when it does (never the text around it). */
export function syntaxErrorOffset(error: unknown): number | null {
  const match = /position (\d+)/.exec(error instanceof Error ? error.message : '');
  return match ? Number(match[1]) : null;
}
