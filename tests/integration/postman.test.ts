import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_SUBMISSION, KEY_PLACEHOLDER } from '../../src/clients/operations';
import { COLLECTION_SCHEMA } from '../../src/clients/postman';
import { run, startLiveGateway } from '../helpers/integrare';

// GET /v1/integrare/postman-collection.json: valid against the v2.1.0 schema (vendored in
// tests/fixtures, no network), and run by newman against a live gateway as a user would run it.

const ROOT = join(import.meta.dirname, '..', '..');
const NEWMAN = join(ROOT, 'node_modules', 'newman', 'bin', 'newman.js');
let gateway: Awaited<ReturnType<typeof startLiveGateway>>;
let url: string;

beforeAll(async () => {
  gateway = await startLiveGateway();
  url = `${gateway.base}/v1/integrare/postman-collection.json`;
}, 60_000);
afterAll(() => gateway?.close());

async function collection() {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as {
    info: { schema: string };
    variable: Array<{ key: string; value: string }>;
    auth: unknown;
    item: Array<{ name: string; request: { method: string; body?: { raw: string } }; event: unknown[] }>;
  };
}

describe('the Postman collection', () => {
  it('is a valid v2.1.0 collection: three routes with bodies and tests, baseUrl and apiKey, X-API-Key auth, no reg_credentials', async () => {
    const doc = await collection();
    const schema = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/postman-collection-v2.1.0.schema.json'), 'utf8'));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    expect(validate(doc), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(doc.info.schema).toBe(COLLECTION_SCHEMA);
    expect(doc.variable).toEqual([
      { key: 'baseUrl', value: gateway.base, type: 'string' },
      { key: 'apiKey', value: KEY_PLACEHOLDER, type: 'string' },
    ]);
    expect(doc.auth).toEqual({
      type: 'apikey',
      apikey: expect.arrayContaining([
        { key: 'key', value: 'X-API-Key', type: 'string' },
        { key: 'value', value: '{{apiKey}}', type: 'string' },
        { key: 'in', value: 'header', type: 'string' },
      ]),
    });
    expect(doc.item.map((i) => i.request.method)).toEqual(['GET', 'POST', 'POST']);
    for (const item of doc.item.slice(1)) expect(JSON.parse(item.request.body!.raw)).toEqual(EXAMPLE_SUBMISSION);
    for (const item of doc.item) expect(item.event).toHaveLength(1);
    expect(JSON.stringify(doc)).not.toContain('reg_credentials');
  });

  it('runs in newman against the live gateway: every test passes, the submission is stored', async () => {
    const accountId = await gateway.t.createAccount('Service newman');
    const key = await gateway.t.createKey(accountId);
    const out = await run(process.execPath, [NEWMAN, 'run', url, '--env-var', `apiKey=${key}`, '--reporters', 'cli', '--color', 'off'], { cwd: ROOT, timeoutMs: 120_000 });
    expect(out.status, `${out.stdout}\n${out.stderr}`).toBe(0);
    expect(out.stdout).toMatch(/assertions\s*│\s*7\s*│\s*0/);
    const [row] = await gateway.t.ctx.sql<{ status: string }[]>`SELECT status FROM submissions WHERE account_id = ${accountId}`;
    expect(row?.status).toBe('queued');
  }, 120_000);

  it('fails in newman with the placeholder key left in', async () => {
    const out = await run(process.execPath, [NEWMAN, 'run', url, '--reporters', 'cli', '--color', 'off'], { cwd: ROOT, timeoutMs: 120_000 });
    expect(out.status).not.toBe(0);
    // It ran and its tests failed on the 401 (not an option or loading error).
    expect(out.stdout).toMatch(/AssertionError/);
    expect(out.stdout).toContain('401');
  }, 120_000);
});
