import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TextRuleInput } from '../../src/domain/mapping-input';
import { isDashboardPath } from '../../src/web';
import { CommitBody } from '../../src/routes/import/schemas';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, upload } from '../helpers/import-files';

// The document served at /openapi.json must list every operation the app serves, with the
// statuses it really answers; it is generated from the routes, and these tests hold it so.

interface OperationDoc {
  summary: string;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, unknown>;
}
type Paths = Record<string, Record<string, OperationDoc>>;

let t: TestApp;
let key: string;
let paths: Paths;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
  paths = (await json(await t.call('GET', '/openapi.json'))).paths as Paths;
});
afterAll(() => t.close());

/** Every route of the API that answers requests (not the `ALL *` middleware entries, not the dashboard's pages), once per method and path. */
function servedRoutes(): Array<{ method: string; path: string }> {
  const seen = new Map<string, { method: string; path: string }>();
  for (const route of t.app.routes) {
    if (route.method === 'ALL' && route.path.endsWith('*')) continue;
    if (isDashboardPath(route.path)) continue;
    const path = route.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');
    seen.set(`${route.method} ${path}`, { method: route.method.toLowerCase(), path });
  }
  return [...seen.values()];
}

const statuses = (method: string, path: string) => Object.keys(paths[path]?.[method]?.responses ?? {}).map(Number);

describe('the OpenAPI document is complete', () => {
  it('lists every route of the app with its method, and nothing the app does not serve', () => {
    const served = servedRoutes();
    expect(served.length).toBeGreaterThan(30);
    const missing = served.filter(({ method, path }) => !paths[path]?.[method]).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
    expect(missing).toEqual([]);
    const documented = Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`));
    expect(documented.sort()).toEqual(served.map(({ method, path }) => `${method} ${path}`).sort());
  });

  it('has the ten import operations, /healthz and /metrics', () => {
    const operations = Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /v1/import',
        'GET /v1/import/{id}',
        'GET /v1/import/{id}/column-mapping',
        'POST /v1/import/{id}/column-mapping',
        'GET /v1/import/{id}/preview',
        'POST /v1/import/{id}/rand/{i}/editeaza',
        'POST /v1/import/{id}/rand/{i}/revizuire',
        'POST /v1/import/{id}/rand/{i}/deoparte',
        'POST /v1/import/{id}/commit',
        'GET /v1/import/{id}/export-failed',
        'GET /healthz',
        'GET /metrics',
      ]),
    );
    expect(operations.filter((op) => op.includes(' /v1/import'))).toHaveLength(10);
    expect(paths['/v1/import/{id}/rand/{i}/editeaza']!.post!.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(['path:id', 'path:i']);
    expect(paths['/v1/import']!.post!.requestBody!.content).toHaveProperty('multipart/form-data');
  });

  it('documents request bodies from the schemas that validate them', () => {
    const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' });
    expect(paths['/v1/reguli-text']!.post!.requestBody!.content['application/json']!.schema).toEqual(schema(TextRuleInput));
    expect(paths['/v1/import/{id}/commit']!.post!.requestBody!.content['application/json']!.schema).toEqual(schema(CommitBody));
    expect(paths['/v1/import/{id}/preview']!.get!.parameters!.map((p) => p.name)).toEqual(['id', 'page', 'page_size', 'state']);
  });

  it('documents the statuses the routes really answer (201 for a new text rule and an upload)', async () => {
    const rule = await t.call('POST', '/v1/reguli-text', { key, body: { pattern: 'ulei motor', cod_prestatie: 'OE-3' } });
    expect(rule.status).toBe(201);
    expect(statuses('post', '/v1/reguli-text')).toContain(201);
    expect(statuses('post', '/v1/reguli-text')).not.toContain(200);

    const staged = await upload(t, key, csvFile([HEADER, ['WDB1234561A654321', 'B123ABC', '2025-03-14', 100, 200, 'X1', 'Ulei']]), 'a.csv');
    expect(staged.status).toBe(201);
    expect(statuses('post', '/v1/import')).toEqual(expect.arrayContaining([201, 401, 413, 415, 422]));

    const answered: Array<[string, string, number]> = [
      ['get', '/healthz', (await t.call('GET', '/healthz')).status],
      ['get', '/metrics', (await t.call('GET', '/metrics')).status],
      ['get', '/v1/ping', (await t.call('GET', '/v1/ping', { key })).status],
      ['get', '/v1/ping', (await t.call('GET', '/v1/ping')).status],
      ['get', '/v1/prezentari/{id}', (await t.call('GET', '/v1/prezentari/999', { key })).status],
      ['get', '/v1/prezentari', (await t.call('GET', '/v1/prezentari?limit=0', { key })).status],
      ['get', '/v1/prezentari', (await t.call('GET', '/v1/prezentari?cursor=x', { key })).status],
      ['post', '/v1/mapari', (await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'X1', cod_prestatie: 'NU-EXISTA' } })).status],
      ['post', '/v1/import/{id}/commit', (await t.call('POST', '/v1/import/1/commit', { key, body: { n_confirmed: 0, rows_hash: '0'.repeat(64) } })).status],
    ];
    const undocumented = answered.filter(([method, path, status]) => !statuses(method, path).includes(status));
    expect(undocumented).toEqual([]);
    // /healthz: 503 (degradat), as no worker runs beside this test app.
    expect(answered.map(([, , status]) => status)).toEqual([503, 200, 200, 401, 404, 422, 400, 400, 409]);
  });

  it('serves /docs/assets only for its own files: a prototype name is a 404, not a 500 (found by the fuzz test)', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect((await t.call('GET', `/docs/assets/${name}`)).status).toBe(404);
    }
  });

  it('marks the /v1 operations as needing a key, and the probes and docs as public', () => {
    expect(paths['/v1/import/{id}/preview']!.get).toHaveProperty('security');
    // Public: an empty security list, so no client sends a key (and redocly's security-defined holds).
    expect(paths['/healthz']!.get).toHaveProperty('security', []);
    expect(paths['/openapi.json']!.get).toHaveProperty('security', []);
    expect(paths['/v1/integrare/postman-collection.json']!.get).toHaveProperty('security', []);
  });
});
