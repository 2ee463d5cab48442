import fc from 'fast-check';

// Hostile values for the API fuzz test, each with a label (its input class) so a finding can
// be reported as "operation + class" and a class already being fixed elsewhere can be named.

/** Must never come back in an error body or in any header. */
export const CANARY = 'CNRYq7x3';
/** Must never come back at all: it only ever fills secret fields (password, b64Image). */
export const SECRET = 'SCRTk9w2';
/** Fields whose values are secret: the API never returns them, whatever the status. */
export const SECRET_FIELDS = new Set(['password', 'b64Image']);

export interface Labeled<T> {
  label: string;
  value: T;
}

/** Raw JSON text spliced into a body where JSON.stringify cannot write it (1e309, deep nesting). */
export class RawJson {
  constructor(readonly text: string) {}
}

const labeled = <T>(label: string, value: T): Labeled<T> => ({ label, value });

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A random value's class by what it holds: a NUL or a lone surrogate is that class, whatever else. */
function classed<T>(fallback: string, value: T): Labeled<T> {
  const text = JSON.stringify(value) === undefined ? String(value) : `${JSON.stringify(value)}${Object.keys(Object(value)).join('')}`;
  if (/\\u0000|\u0000/.test(text)) return labeled('nul', value);
  if (LONE_SURROGATE.test(text) || /\\ud[89a-f][0-9a-f]{2}/i.test(text)) return labeled('lone-surrogate', value);
  return labeled(fallback, value);
}

/** Hostile strings carrying `token` (the canary, or the secret canary for a secret field). */
export function hostileStrings(token: string): fc.Arbitrary<Labeled<string>> {
  return fc.oneof(
    fc.constantFrom(
      labeled('nul', `${token}\u0000x`),
      labeled('nul', `\u0000${token}`),
      labeled('lone-surrogate', `${token}\ud800`),
      labeled('lone-surrogate', `\udfff${token}`),
      labeled('control-chars', `${token}\r\nSet-Cookie: x=${token}\t\u0007\u001b[31m`),
      labeled('path-traversal', `../../${token}/../etc/passwd`),
      labeled('percent-escapes', `%00%2e%2e%2f${token}%ZZ`),
      labeled('sql-ish', `${token}' OR 1=1; DROP TABLE submissions; --`),
      labeled('formula', `=HYPERLINK("http://x/${token}");=1+1`),
      labeled('bidi-unicode', `${token}\u202e\ufeff\u200bȘșȚț😀\u0301`),
      labeled('empty', ''),
      labeled('whitespace', ' \t\n '),
      labeled('proto-name', '__proto__'),
      labeled('proto-name', 'constructor'),
      labeled('proto-name', 'prototype'),
      labeled('json-in-string', `{"${token}":[1,{"__proto__":{}}]}`),
      labeled('html', `<script>alert("${token}")</script>`),
    ),
    fc.integer({ min: 1_000, max: 300_000 }).map((n) => labeled('huge-string', token + 'A'.repeat(n) + token)),
    fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)), minLength: 1, maxLength: 8 }).map((s) => labeled('lone-surrogate', token + s)),
    fc.string({ unit: 'binary', maxLength: 40 }).map((s) => classed('random-unicode', token + s)),
  );
}

const deepArray = (depth: number) => new RawJson('['.repeat(depth) + ']'.repeat(depth));
const deepObject = (depth: number) => new RawJson(`${'{"a":'.repeat(depth)}null${'}'.repeat(depth)}`);

/** A hostile JSON value of any type, for a field whose schema wants something else. */
export function hostileValues(token: string): fc.Arbitrary<Labeled<unknown>> {
  return fc.oneof(
    { weight: 4, arbitrary: hostileStrings(token) },
    {
      weight: 3,
      arbitrary: fc.constantFrom<Labeled<unknown>>(
        labeled('odd-number', 0),
        labeled('odd-number', -1),
        labeled('odd-number', -0.5),
        labeled('odd-number', 1.5),
        labeled('odd-number', new RawJson('1e309')),
        labeled('odd-number', new RawJson('-1e309')),
        labeled('odd-number', new RawJson('9999999999999999999')),
        labeled('odd-number', 2 ** 31),
        labeled('odd-number', 2 ** 53 + 2),
        labeled('odd-number', 5e-324),
        labeled('wrong-type', true),
        labeled('wrong-type', null),
        labeled('wrong-type', []),
        labeled('wrong-type', {}),
        labeled('wrong-type', [token]),
        labeled('wrong-type', { [token]: token }),
        labeled('proto-object', JSON.parse(`{"__proto__":{"polluted":"${token}"},"constructor":{"prototype":{"polluted":"${token}"}}}`)),
      ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 50_000 }).map((d) => labeled('deep-value', deepArray(d))) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((d) => labeled('deep-value', deepObject(d))) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 100_000 }).map((n) => labeled('huge-array', new RawJson(`[${'1,'.repeat(n)}1]`))) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => classed('wrong-type', v)) },
  );
}

/** Property names an attacker adds to a body. */
export const hostileKeys: fc.Arbitrary<Labeled<string>> = fc.constantFrom(
  labeled('proto-key', '__proto__'),
  labeled('proto-key', 'constructor'),
  labeled('proto-key', 'prototype'),
  labeled('extra-key', `${CANARY}_key`),
  labeled('extra-key', 'account_id'),
  labeled('extra-key', 'status'),
  labeled('nul', `k\u0000${CANARY}`),
  labeled('lone-surrogate', `k\ud800${CANARY}`),
);

/** JSON text with own properties as given (an own `__proto__` key included), and RawJson spliced in. */
export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${toJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Raw bodies that are not JSON of the operation's shape at all. */
export function hostileRawBodies(): fc.Arbitrary<Labeled<string | Uint8Array>> {
  return fc.oneof(
    fc.constantFrom<Labeled<string | Uint8Array>>(
      labeled('raw-empty', ''),
      labeled('raw-scalar', 'null'),
      labeled('raw-scalar', '[]'),
      labeled('raw-scalar', '1e309'),
      labeled('raw-scalar', `"${CANARY}"`),
      labeled('raw-malformed', '{'),
      labeled('raw-malformed', `{"vin": ${CANARY}}`),
      labeled('raw-malformed', `{"username":"u","password":${SECRET}}`),
      labeled('raw-malformed', `{"password":"${SECRET}`),
      labeled('raw-malformed', `${CANARY}{"a":1}`),
      labeled('raw-malformed', `{"a":1,}${CANARY}`),
      labeled('raw-malformed', `{'a': '${CANARY}'}`),
      labeled('raw-nul', `{"vin":"${CANARY}\u0000"}`),
      labeled('raw-escaped-nul', `{"vin":"${CANARY}\\u0000","nrInm":"\\ud800"}`),
      labeled('raw-duplicate-keys', `{"vin":"${CANARY}","vin":1,"vin":{"__proto__":null}}`),
      labeled('raw-proto', `{"__proto__":{"polluted":"${CANARY}"},"constructor":{"prototype":{"polluted":1}}}`),
      labeled('raw-bom', `\ufeff{"vin":"${CANARY}"}`),
      labeled('raw-invalid-utf8', new Uint8Array([0x7b, 0x22, 0x76, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x80, 0xed, 0xa0, 0x80, 0x22, 0x7d])),
      labeled('raw-utf16', new Uint8Array(Buffer.from(`{"vin":"${CANARY}"}`, 'utf16le'))),
    ),
    fc.integer({ min: 1_000, max: 200_000 }).map((d) => labeled('raw-deep', '['.repeat(d) + ']'.repeat(d))),
    fc.integer({ min: 1_000, max: 50_000 }).map((d) => labeled('raw-deep', `${`{"${CANARY}":`.repeat(d)}1${'}'.repeat(d)}`)),
    fc.integer({ min: 1_000, max: 100_000 }).map((d) => labeled('raw-unclosed-deep', `{"vin":${'['.repeat(d)}`)),
    fc.integer({ min: 100_000, max: 2_000_000 }).map((n) => labeled('raw-huge', `{"vin":"${CANARY}${'A'.repeat(n)}"}`)),
  );
}

/** Content types sent with a body. */
export const contentTypes: fc.Arbitrary<Labeled<string | undefined>> = fc.constantFrom(
  labeled('content-type:json', 'application/json'),
  labeled('content-type:json', 'application/json'),
  labeled('content-type:json', 'application/json'),
  labeled('content-type:json-charset', 'application/json; charset=utf-16'),
  labeled('content-type:json-upper', 'APPLICATION/JSON'),
  labeled('content-type:text', 'text/plain'),
  labeled('content-type:form', 'application/x-www-form-urlencoded'),
  labeled('content-type:multipart-no-boundary', 'multipart/form-data'),
  labeled('content-type:multipart-bad-boundary', `multipart/form-data; boundary=${CANARY}`),
  labeled('content-type:odd', `application/${CANARY}+json`),
  labeled('content-type:none', undefined),
);

/** Path segments that name nothing (or another account's row, added by the caller). */
export const oddIds: Array<Labeled<string>> = [
  '0',
  '-1',
  '1e309',
  '9999999999999999999',
  '2147483648',
  '9007199254740993',
  'abc',
  '%00',
  `${CANARY}%00`,
  '..',
  '..%2F..%2Fpackage.json',
  '%2e%2e',
  '%ZZ',
  '1.5',
  '%20%31',
  '0x10',
  '%ED%A0%80',
  '%C0%80',
  `%F0%9F%98%80${CANARY}`,
  'A'.repeat(5_000),
  '__proto__',
  'constructor',
].map((id) => labeled(/%00/.test(id) ? 'nul' : 'odd-id', id));

/** Percent-encodes a string as UTF-8 bytes; a lone surrogate becomes U+FFFD (fetch would do the same). */
export function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}
