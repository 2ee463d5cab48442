import type { Operation } from '../operations';

// How each language writes the operations' bodies and paths: one converter per syntax, so
// every example's body is the description's own value, not a copy typed by hand.

export interface Syntax {
  string: (s: string) => string;
  object: (entries: Array<[string, string]>, indent: string) => string;
  array: (items: string[], indent: string) => string;
  true: string;
  false: string;
  null: string;
  /** A value an earlier answer captured (`{rows_hash}` in the description). */
  variable: (name: string) => string;
  /** One level of indentation (4 spaces unless the language's style says otherwise). */
  step?: string;
}

const VARIABLE = /^\{(\w+)\}$/;

/** `value` (JSON data from the description) as a literal of `syntax`, indented from `indent`. */
export function literal(value: unknown, syntax: Syntax, indent = ''): string {
  if (typeof value === 'string') {
    const variable = VARIABLE.exec(value);
    return variable ? syntax.variable(variable[1]!) : syntax.string(value);
  }
  if (typeof value === 'number') return String(value);
  if (value === true) return syntax.true;
  if (value === false) return syntax.false;
  if (value === null || value === undefined) return syntax.null;
  const inner = `${indent}${syntax.step ?? '    '}`;
  if (Array.isArray(value))
    return syntax.array(
      value.map((v) => literal(v, syntax, inner)),
      indent,
    );
  return syntax.object(
    Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, literal(v, syntax, inner)]),
    indent,
  );
}

/** Lines of a multi-line literal: `open`, one entry a line, `close`. */
export const block = (open: string, items: string[], close: string, indent: string, step = '    ') =>
  items.length === 0 ? `${open}${close}` : `${open}\n${items.map((i) => `${indent}${step}${i}`).join(',\n')}\n${indent}${close}`;

/** A path as text and variable parts: `/v1/import/{batch_id}/preview` → ['/v1/import/', {batch_id}, '/preview']. */
export function pathParts(path: string): Array<string | { variable: string }> {
  return path
    .split(/(\{\w+\})/)
    .filter(Boolean)
    .map((part) => (VARIABLE.test(part) ? { variable: VARIABLE.exec(part)![1]! } : part));
}

/** The JSON body of an operation (absent for GET and the upload). */
export const jsonOf = (op: Operation): Record<string, unknown> | undefined => (op.body && 'json' in op.body ? op.body.json : undefined);

/** A JSON string literal: what C-family languages, Python and PHP all read the same way for our values. */
export const quoted = (s: string) => JSON.stringify(s);
