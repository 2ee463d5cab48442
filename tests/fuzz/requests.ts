import fc from 'fast-check';
import {
  CANARY,
  contentTypes,
  RawJson,
  encodeSegment,
  hostileKeys,
  hostileRawBodies,
  hostileStrings,
  hostileValues,
  type Labeled,
  oddIds,
  SECRET,
  SECRET_FIELDS,
  toJson,
} from './hostile';

// Requests for one operation of the OpenAPI document: its path parameters, query string and
// body are generated from what the document says (parameter names, body schema) and from a
// valid example, mutated field by field, plus raw hostile bodies and odd content types.

export interface OperationDoc {
  parameters?: Array<{ name: string; in: string; schema?: { enum?: unknown[]; type?: string; pattern?: string } }>;
  requestBody?: { content: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
  responses: Record<string, unknown>;
}

export interface Operation {
  method: string;
  path: string;
  doc: OperationDoc;
}

export interface FuzzRequest {
  op: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
  labels: string[];
}

export interface Targets {
  /** The attacker's key (account A). */
  key: string;
  /** A valid JSON body per operation (`POST /v1/mapari`), mutated by the generator. */
  examples: Record<string, unknown>;
  /** Real values of a path parameter: A's own rows and B's (labelled other-account-id). */
  pathValues: (path: string, param: string) => Array<Labeled<string>>;
  /** A valid upload (CSV) for the multipart operation. */
  uploadFile: Buffer;
}

export const opName = (op: Pick<Operation, 'method' | 'path'>) => `${op.method.toUpperCase()} ${op.path}`;

function pathArb(op: Operation, targets: Targets): fc.Arbitrary<{ path: string; labels: string[] }> {
  const params = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  if (params.length === 0) return fc.constant({ path: op.path, labels: [] });
  const values = params.map((param) => {
    const real = targets.pathValues(op.path, param);
    return fc.oneof(
      { weight: 5, arbitrary: real.length ? fc.constantFrom(...real) : fc.constantFrom(...oddIds) },
      { weight: 3, arbitrary: fc.constantFrom(...oddIds) },
      { weight: 1, arbitrary: hostileStrings(CANARY).map((h) => ({ label: h.label, value: encodeSegment(h.value) })) },
    );
  });
  return fc.tuple(...values).map((chosen) => {
    let i = 0;
    return { path: op.path.replace(/\{\w+\}/g, () => chosen[i++]!.value), labels: chosen.map((c) => c.label) };
  });
}

/** A plausible value for a documented query parameter (so the others are reached). */
function plausible(schema: { enum?: unknown[]; type?: string; pattern?: string } | undefined): fc.Arbitrary<string> {
  if (schema?.enum?.length) return fc.constantFrom(...schema.enum.map(String));
  if (schema?.type === 'integer' || schema?.type === 'number') return fc.integer({ min: -2, max: 1_000 }).map(String);
  if (schema?.pattern?.includes('\\d{4}')) return fc.constantFrom('2025-03-14', '2025-13-45', '0000-00-00');
  return fc.constantFrom('x', '1', '');
}

function queryArb(op: Operation): fc.Arbitrary<{ query: string; labels: string[] }> {
  const documented = (op.doc.parameters ?? []).filter((p) => p.in === 'query');
  const names = [...documented.map((p) => p.name), '__proto__', 'constructor', `${CANARY}_q`, 'account_id'];
  const pair = fc.tuple(
    fc.constantFrom(...names),
    fc.oneof(
      {
        weight: 2,
        arbitrary: fc
          .nat({ max: documented.length })
          .chain((i) => plausible(documented[i]?.schema))
          .map((v) => ({ label: 'plausible', value: v })),
      },
      { weight: 2, arbitrary: hostileStrings(CANARY) },
      { weight: 1, arbitrary: fc.constantFrom(...oddIds).map((o) => ({ label: o.label, value: decodeURIComponentSafe(o.value) })) },
    ),
  );
  return fc.array(pair, { maxLength: documented.length ? 6 : 2 }).map((pairs) => {
    if (pairs.length === 0) return { query: '', labels: [] };
    const seen = new Set<string>();
    const labels = pairs.map(([name, v]) => {
      const repeated = seen.has(name);
      seen.add(name);
      return repeated ? 'repeated-query' : v.label;
    });
    return { query: `?${pairs.map(([name, v]) => `${encodeSegment(name)}=${encodeSegment(v.value)}`).join('&')}`, labels };
  });
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

type Json = Record<string, unknown> | unknown[];

/** Every path into `value` (object keys and array indices), the root excluded. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return [];
  const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => [[...prefix, k], ...paths((value as Record<string, unknown>)[k as string], [...prefix, k])]);
}

function setOwn(target: Json, key: string | number, value: unknown) {
  // defineProperty, so that a `__proto__` key is an own property as JSON.parse makes it.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A fresh copy of a generated value: constants are shared between runs and must not be grown into cycles. */
function copy(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return value;
  const out: Json = Array.isArray(value) ? [] : {};
  for (const k of Object.keys(value)) setOwn(out, k, copy((value as Record<string, unknown>)[k]));
  return out;
}

const at = (root: unknown, path: Array<string | number>) => path.reduce<unknown>((node, k) => (node as Record<string, unknown>)[k as string], root);

const mutation = fc.record({
  kind: fc.constantFrom('replace', 'replace', 'replace', 'delete', 'add-key', 'schema-field'),
  pick: fc.nat(),
  value: hostileValues(CANARY),
  secret: hostileValues(SECRET),
  key: hostileKeys,
});

/** The example with one to three fields changed; each change adds its input class to `labels`. */
function mutatedExample(example: Json, schemaProperties: string[]): fc.Arbitrary<{ body: string; labels: string[] }> {
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((changes) => {
    const body = structuredClone(example);
    const labels: string[] = [];
    for (const change of changes) {
      const all = paths(body);
      if (change.kind === 'schema-field' && schemaProperties.length && !Array.isArray(body)) {
        const name = schemaProperties[change.pick % schemaProperties.length]!;
        const v = SECRET_FIELDS.has(name) ? change.secret : change.value;
        setOwn(body, name, copy(v.value));
        labels.push(v.label);
      } else if (change.kind === 'add-key' || all.length === 0) {
        const objects = [[], ...all].filter((p) => {
          const node = at(body, p);
          return node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof RawJson);
        });
        const parent = at(body, objects[change.pick % objects.length]!) as Json;
        setOwn(parent, change.key.value, copy(change.value.value));
        labels.push(change.key.label, change.value.label);
      } else {
        const path = all[change.pick % all.length]!;
        const parent = at(body, path.slice(0, -1)) as Json;
        const last = path[path.length - 1]!;
        if (change.kind === 'delete') {
          if (Array.isArray(parent)) parent.splice(Number(last), 1);
          else delete parent[last as string];
          labels.push('missing-field');
        } else {
          const v = SECRET_FIELDS.has(String(last)) ? change.secret : change.value;
          setOwn(parent, last, copy(v.value));
          labels.push(v.label);
        }
      }
    }
    return { body: toJson(body), labels };
  });
}

function jsonBodyArb(op: Operation, targets: Targets): fc.Arbitrary<{ body?: string | Uint8Array; contentType?: string; labels: string[] }> {
  const example = targets.examples[opName(op)] as Json | undefined;
  if (example === undefined) throw new Error(`No valid example body for ${opName(op)}: add one to the fuzz test's examples.`);
  const properties = Object.keys(op.doc.requestBody?.content['application/json']?.schema?.properties ?? {});
  return fc
    .tuple(
      fc.oneof(
        { weight: 2, arbitrary: fc.constant({ body: JSON.stringify(example) as string | Uint8Array, labels: ['valid'] }) },
        { weight: 6, arbitrary: mutatedExample(example, properties) as fc.Arbitrary<{ body: string | Uint8Array; labels: string[] }> },
        { weight: 3, arbitrary: hostileRawBodies().map((r) => ({ body: r.value as string | Uint8Array, labels: [r.label] })) },
      ),
      contentTypes,
    )
    .map(([b, type]) => ({ body: b.body, contentType: type.value, labels: type.label === 'content-type:json' ? [...b.labels] : [...b.labels, type.label] }));
}

function csv(rows: string[][]): Uint8Array {
  return new TextEncoder().encode(rows.map((r) => r.map((c) => `"${c.replace(/"/g, '""')}"`).join(',')).join('\r\n'));
}

function uploadArb(targets: Targets): fc.Arbitrary<{ body?: FormData | string | Uint8Array; contentType?: string; labels: string[] }> {
  const header = ['VIN', 'Nr. înmatriculare', 'Data prestației', 'Km intrare', 'Km ieșire', 'Cod operație', 'Denumire operație'];
  const file = fc.oneof(
    fc.constant({ label: 'valid', value: new Uint8Array(targets.uploadFile) }),
    fc.tuple(hostileStrings(CANARY), fc.nat({ max: 6 })).map(([h, col]) => {
      const row = ['WDB1234561A654321', 'B123ABC', '2025-03-14', '100', '200', 'X1', 'Ulei'];
      row[col] = h.value;
      return { label: `cell-${h.label}`, value: csv([header, row]) };
    }),
    hostileStrings(CANARY).map((h) => ({
      label: `header-${h.label}`,
      value: csv([
        [h.value, ...header.slice(1)],
        ['WDB1234561A654321', 'B123ABC', '2025-03-14', '1', '2', 'X1', 'Ulei'],
      ]),
    })),
    fc.uint8Array({ maxLength: 2_000 }).map((b) => ({ label: 'random-bytes', value: b })),
    fc.uint8Array({ maxLength: 500 }).map((b) => ({ label: 'fake-xlsx', value: new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...b]) })),
    fc.constant({ label: 'empty-file', value: new Uint8Array() }),
  );
  const filename = fc.oneof(
    fc.constant({ label: 'valid', value: 'prestatii.csv' }),
    hostileStrings(CANARY).map((h) => ({ label: `filename-${h.label}`, value: h.value.slice(0, 5_000) })),
  );
  const form = fc
    .record({ file, filename, twoFiles: fc.boolean(), fileAsText: fc.boolean(), sheets: fc.array(hostileStrings(CANARY), { maxLength: 3 }) })
    .map(({ file, filename, twoFiles, fileAsText, sheets }) => {
      const data = new FormData();
      const labels = [file.label, filename.label, ...sheets.map((s) => `sheet-${s.label}`)];
      if (fileAsText) {
        data.append('file', `${CANARY} text, not a file`);
        labels.push('file-as-text');
      } else data.append('file', new Blob([file.value]), filename.value);
      if (twoFiles) {
        data.append('file', new Blob([file.value]), 'b.csv');
        labels.push('two-files');
      }
      for (const s of sheets) data.append('sheet', s.value);
      return { body: data as FormData | string | Uint8Array, contentType: undefined as string | undefined, labels: labels.filter((l) => l !== 'valid') };
    });
  return fc.oneof(
    { weight: 4, arbitrary: form },
    { weight: 1, arbitrary: fc.tuple(hostileRawBodies(), contentTypes).map(([b, type]) => ({ body: b.value, contentType: type.value, labels: [b.label, type.label] })) },
  );
}

function bodyArb(op: Operation, targets: Targets): fc.Arbitrary<{ body?: string | Uint8Array | FormData; contentType?: string; labels: string[] }> {
  const content = op.doc.requestBody?.content ?? {};
  if (content['multipart/form-data']) return uploadArb(targets);
  if (content['application/json']) return jsonBodyArb(op, targets);
  // No body documented: mostly none, sometimes one anyway (fetch refuses one on a GET).
  if (op.method === 'get') return fc.constant({ labels: [] as string[] });
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ labels: [] as string[] }) },
    { weight: 1, arbitrary: fc.tuple(hostileRawBodies(), contentTypes).map(([b, type]) => ({ body: b.value, contentType: type.value, labels: ['unexpected-body', b.label] })) },
  );
}

const authArb = (key: string): fc.Arbitrary<Labeled<Record<string, string>>> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant<Labeled<Record<string, string>>>({ label: 'auth:key', value: { 'X-API-Key': key } }) },
    { weight: 2, arbitrary: fc.constant<Labeled<Record<string, string>>>({ label: 'auth:bearer', value: { Authorization: `Bearer ${key}` } }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Labeled<Record<string, string>>>(
        { label: 'auth:none', value: {} },
        { label: 'auth:invalid', value: { 'X-API-Key': CANARY } },
        { label: 'auth:invalid', value: { Authorization: `Bearer ${CANARY}`, 'X-API-Key': '' } },
        { label: 'auth:huge', value: { 'X-API-Key': CANARY + 'k'.repeat(10_000) } },
        { label: 'auth:odd', value: { Authorization: `Basic ${CANARY}` } },
      ),
    },
  );

/** One generated request for `op`, sent by account A. */
export function requestArb(op: Operation, targets: Targets): fc.Arbitrary<FuzzRequest> {
  return fc.record({ path: pathArb(op, targets), query: queryArb(op), body: bodyArb(op, targets), auth: authArb(targets.key) }).map(({ path, query, body, auth }) => {
    const headers: Record<string, string> = { ...auth.value };
    if (body.contentType !== undefined) headers['Content-Type'] = body.contentType;
    const labels = [...path.labels, ...query.labels, ...body.labels, ...(auth.label === 'auth:key' ? [] : [auth.label])];
    return { op: opName(op), method: op.method.toUpperCase(), url: path.path + query.query, headers, body: body.body, labels: labels.length ? [...new Set(labels)] : ['valid'] };
  });
}
