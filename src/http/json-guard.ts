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
 * One linear pass over the bytes, outside strings: nesting depth and the number of values
 * (separators). Refusing here costs microseconds per kilobyte; parsing a hostile body first
 * blocked the event loop for seconds.
 */
export function scanJson(bytes: Uint8Array): ScanProblem | null {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
    } else if (b === QUOTE) {
      inString = true;
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
