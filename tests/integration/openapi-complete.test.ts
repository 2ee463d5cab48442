import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, upload } from '../helpers/import-files';
import { run } from '../helpers/integrare';

// The OpenAPI document as a client generator and Swagger UI read it: servers, operation ids,
// tags, every error's envelope, request examples that answer what the document says, and
// redocly's recommended rules with no error.

interface Operation {
  operationId: string;
  tags: string[];
  security: unknown[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
}
type Document = { servers: Array<{ url: string }>; paths: Record<string, Record<string, Operation>> };

const ROOT = join(import.meta.dirname, '..', '..');
let t: TestApp;
let key: string;
let doc: Document;
let dir: string;

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_PUBLIC_URL: 'https://gateway.service.ro' });
  key = await t.createKey(await t.createAccount());
  doc = (await json(await t.call('GET', '/openapi.json'))) as unknown as Document;
  dir = mkdtempSync(join(tmpdir(), 'gateway-openapi-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const operations = () => Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

describe('the OpenAPI document, complete', () => {
  it('names its server, and gives every operation a unique id and a tag', () => {
    expect(doc.servers).toEqual([{ url: 'https://gateway.service.ro', description: expect.any(String) }]);
    const ids = operations().map(({ op }) => op.operationId);
    expect(ids.every(Boolean)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(operations().every(({ op }) => op.tags.length === 1)).toBe(true);
    expect(doc.paths['/v1/prezentari/valideaza']!.post!.operationId).toBe('dryRun');
  });

  it('documents every error answer of a /v1 operation with the envelope, and every success of the submissions with a schema', () => {
    for (const { path, method, op } of operations().filter(({ path }) => path.startsWith('/v1/') && !path.startsWith('/v1/integrare'))) {
      for (const status of ['401', '429', '422']) expect(op.responses[status], `${method} ${path} ${status}`).toBeDefined();
      for (const [status, answer] of Object.entries(op.responses)) {
        if (Number(status) >= 400) expect(answer.content?.['application/json']?.schema, `${method} ${path} ${status}`).toBeDefined();
      }
    }
    for (const { path, method, op } of operations().filter(({ path }) => path.startsWith('/v1/prezentari') || path === '/v1/ping')) {
      const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))![1];
      expect(success.content?.['application/json']?.schema, `${method} ${path}`).toBeDefined();
    }
  });

  it('every documented request example answers a documented status, in the documented schema', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const examples = operations().filter(({ op }) => op.requestBody?.content['application/json']?.example !== undefined);
    expect(examples.map(({ op }) => op.operationId).sort()).toEqual(['dryRun', 'submit']);
    for (const { path, method, op } of examples) {
      const res = await t.call(method.toUpperCase(), path, { key, body: op.requestBody!.content['application/json']!.example });
      const documented = op.responses[String(res.status)];
      expect(documented, `${method} ${path} answered ${res.status}`).toBeDefined();
      const validate = ajv.compile(documented!.content!['application/json']!.schema!);
      const body = await res.json();
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      expect(body).toMatchObject(op.operationId === 'dryRun' ? { status_estimat: 'queued' } : { status: 'queued' });
    }
  });

  it('"Try it out" of the upload: no sample sheet name, and an empty sheet= is no sheet', async () => {
    const sheet = (doc.paths['/v1/import']!.post!.requestBody!.content['multipart/form-data']!.schema.properties as Record<string, { default?: unknown }>).sheet!;
    expect(sheet.default).toEqual([]);
    const file = csvFile([HEADER, ['WDB1234561A654321', 'B123ABC', '2025-03-14', 100, 200, 'X1', 'Ulei']]);
    const res = await upload(t, key, file, 'a.csv', { sheets: [''] });
    expect(res.status).toBe(201);
  });

  it('passes redocly lint (recommended rules) with no error', async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const out = await run(join(ROOT, 'node_modules', '.bin', 'redocly'), ['lint', file, '--format', 'summary'], {
      cwd: dir,
      timeoutMs: 120_000,
      env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    expect(out.status, `${out.stdout}\n${out.stderr}`).toBe(0);
    expect(`${out.stdout}${out.stderr}`).not.toMatch(/^error /m);
  }, 120_000);
});
