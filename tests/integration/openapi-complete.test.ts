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

  it('documents every error answer of a /v1 operation with the envelope, and every JSON success with its schema', () => {
    for (const { path, method, op } of operations().filter(({ path }) => path.startsWith('/v1/') && !path.startsWith('/v1/integrare'))) {
      for (const status of ['401', '429', '422']) expect(op.responses[status], `${method} ${path} ${status}`).toBeDefined();
      for (const [status, answer] of Object.entries(op.responses)) {
        if (Number(status) >= 400) expect(answer.content?.['application/json']?.schema, `${method} ${path} ${status}`).toBeDefined();
      }
    }
    // Every JSON success of the API and /healthz has its schema (CSV exports and the collection are files).
    const files = ['/v1/audit/export', '/v1/import/{id}/export-failed', '/v1/integrare/postman-collection.json'];
    for (const { path, method, op } of operations().filter(({ path }) => (path.startsWith('/v1/') && !files.includes(path)) || path === '/healthz')) {
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

  it('real answers match the schemas the document gives them (submissions, import flow, mappings, rules, probes)', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const checked: string[] = [];
    async function documented(method: string, path: string, res: Response) {
      const schema = doc.paths[path]?.[method]?.responses[String(res.status)]?.content?.['application/json']?.schema;
      expect(schema, `${method} ${path} ${res.status} has no schema`).toBeDefined();
      const body = await res.json();
      const validate = ajv.compile(schema!);
      expect(validate(body), `${method} ${path} ${res.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
      checked.push(`${method} ${path} ${res.status}`);
      return body as Record<string, unknown>;
    }
    const sub = { vin: 'WDB1234561A654321', nrInm: 'B1', dataPrestatie: '2025-03-14', odometruFinal: 5, prestatii: [{ cod_op_service: 'SCH-X', denumire: 'Schimb' }] };
    const created = await documented('post', '/v1/prezentari', await t.call('POST', '/v1/prezentari', { key, body: sub }));
    await documented('post', '/v1/prezentari', await t.call('POST', '/v1/prezentari', { key, body: sub }));
    const id = created.submission_id as number;
    await documented('get', '/v1/prezentari/{id}', await t.call('GET', `/v1/prezentari/${id}`, { key }));
    await documented('get', '/v1/prezentari', await t.call('GET', '/v1/prezentari', { key }));
    await documented('get', '/v1/mapari/pending', await t.call('GET', '/v1/mapari/pending', { key }));
    await documented('post', '/v1/mapari', await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'SCH-X', cod_prestatie: 'OE-3' } }));
    await documented('get', '/v1/mapari', await t.call('GET', '/v1/mapari', { key }));
    await documented('delete', '/v1/mapari/{code}', await t.call('DELETE', '/v1/mapari/SCH-X', { key }));
    await documented('get', '/v1/nomenclator', await t.call('GET', '/v1/nomenclator', { key }));
    const rule = await documented('post', '/v1/reguli-text', await t.call('POST', '/v1/reguli-text', { key, body: { pattern: 'ulei motor', cod_prestatie: 'OE-3' } }));
    await documented('get', '/v1/reguli-text', await t.call('GET', '/v1/reguli-text', { key }));
    await documented('delete', '/v1/reguli-text/{id}', await t.call('DELETE', `/v1/reguli-text/${(rule.regula as { id: number }).id}`, { key }));
    await documented('get', '/v1/ping', await t.call('GET', '/v1/ping', { key }));
    await documented('get', '/healthz', await t.call('GET', '/healthz'));
    await documented('delete', '/v1/prezentari/{id}', await t.call('DELETE', `/v1/prezentari/${id}`, { key }));
    await documented('get', '/v1/prezentari/{id}', await t.call('GET', `/v1/prezentari/${id}`, { key }));
    await documented('post', '/v1/prezentari', await t.call('POST', '/v1/prezentari', { key, body: '{"vin": 1}' }));

    const rows = [HEADER, ['WDB1234561A654321', 'B123ABC', '2025-03-14', 100, 200, 'X1', 'Ulei'], ['VF1RFB00X12345678', 'CJ10XYZ', '2025-03-15', '', 80, '', '']];
    const batch = await documented('post', '/v1/import', await upload(t, key, csvFile(rows), 'a.csv'));
    const batchId = batch.batch_id as number;
    await documented('get', '/v1/import/{id}', await t.call('GET', `/v1/import/${batchId}`, { key }));
    await documented('get', '/v1/import/{id}/column-mapping', await t.call('GET', `/v1/import/${batchId}/column-mapping`, { key }));
    await documented('post', '/v1/import/{id}/column-mapping', await t.call('POST', `/v1/import/${batchId}/column-mapping`, { key, body: { column_mapping: {} } }));
    await documented('post', '/v1/import/{id}/rand/{i}/editeaza', await t.call('POST', `/v1/import/${batchId}/rand/1/editeaza`, { key, body: { odometruFinal: 90 } }));
    const preview = await documented('get', '/v1/import/{id}/preview', await t.call('GET', `/v1/import/${batchId}/preview`, { key }));
    const commit = { n_confirmed: preview.n_to_commit, rows_hash: preview.rows_hash };
    await documented('post', '/v1/import/{id}/commit', await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: commit }));
    await documented('post', '/v1/import/{id}/commit', await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: commit }));
    expect(checked).toEqual(
      expect.arrayContaining(['post /v1/import/{id}/commit 200', 'post /v1/import/{id}/commit 409', 'get /v1/prezentari/{id} 404', 'post /v1/prezentari 422']),
    );
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
