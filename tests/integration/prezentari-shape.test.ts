import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSubmission } from '../helpers/factories';
import { json, startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let key: string;
const CANARY = 'Canar-Parola-9f8e7d';

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_MAX_BODY_BYTES: '200000', GATEWAY_MAX_JSON_BYTES: '200000' });
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

const count = async () => Number((await t.ctx.sql`SELECT count(*)::int AS n FROM submissions`)[0]!.n);

/** A request over Node's HTTP server, where the body middleware reads the request's own stream. */
async function overHttp(path: string, init: RequestInit): Promise<Response> {
  const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, init);
    return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('POST /v1/prezentari: a wrong shape is a 422 with type/loc/msg only', () => {
  it.each([
    ['malformed JSON', '{"vin": "WDB', 'json_invalid'],
    ['an empty body', '', 'json_invalid'],
    ['a JSON array', '[]', 'invalid_type'],
  ])('%s', async (_name, body, type) => {
    const before = await count();
    const res = await t.call('POST', '/v1/prezentari', { key, body });
    expect(res.status).toBe(422);
    const out = await json(res);
    expect(Object.keys(out)).toEqual(['detail']);
    expect((out.detail as Array<{ type: string }>)[0]?.type).toBe(type);
    expect(await count()).toBe(before);
  });

  it('a multipart form is a 415 TIP_CORP_NESUPORTAT, unread, nothing stored (over real HTTP)', async () => {
    const before = await count();
    const body = '--x\r\nContent-Disposition: form-data; name="vin"\r\n\r\nWDB\r\n--x--\r\n';
    const res = await overHttp('/v1/prezentari', { method: 'POST', body, headers: { 'X-API-Key': key, 'Content-Type': 'multipart/form-data; boundary=x' } });
    expect(await json(res)).toMatchObject({ status: 415, cod: 'TIP_CORP_NESUPORTAT' });
    expect(await count()).toBe(before);
  });

  it.each([['plain text', 'text/plain', '{"vin": "WDB']])('a body sent as %s is read as JSON: a 422, nothing stored (over real HTTP)', async (_name, type, body) => {
    const before = await count();
    const res = await overHttp('/v1/prezentari', { method: 'POST', body, headers: { 'X-API-Key': key, 'Content-Type': type } });
    expect(res.status).toBe(422);
    expect(((await json(res)).detail as Array<{ type: string }>)[0]?.type).toBe('json_invalid');
    expect(await count()).toBe(before);
  });

  it('an upload over the body limit is a 413 over real HTTP, declared or streamed without a length', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(300_000, 0x41)]), 'mare.csv');
    const body = Buffer.from(await new Response(form).arrayBuffer());
    const type = new Response(form).headers.get('content-type')!;
    const declared = await overHttp('/v1/import', { method: 'POST', body, headers: { 'X-API-Key': key, 'Content-Type': type } });
    const streamed = await overHttp('/v1/import', {
      method: 'POST',
      body: new Blob([body]).stream(),
      duplex: 'half',
      headers: { 'X-API-Key': key, 'Content-Type': type },
    } as RequestInit);
    for (const res of [declared, streamed]) expect(await json(res)).toMatchObject({ status: 413, cod: 'PREA_MARE' });
    expect(await t.ctx.sql`SELECT 1 FROM import_batches`).toHaveLength(0);
  });

  it.each([
    ['prestatii not an array', { prestatii: 'OE-3' }, ['body', 'prestatii']],
    // biome-ignore lint/correctness/noPrecisionLoss: any number will do; this one is a VIN's 17 digits, as a client might send it
    ['a number where a string belongs', { vin: 12345678901234567 }, ['body', 'vin']],
    ['an item with neither form', { prestatii: [{ denumire: 'x' }] }, ['body', 'prestatii', 0]],
    ['a boolean odometer', { odometruFinal: true }, ['body', 'odometruFinal']],
    ['on_unmapped_error as a string', { on_unmapped_error: 'yes' }, ['body', 'on_unmapped_error']],
  ])('%s', async (_name, over, loc) => {
    const res = await t.call('POST', '/v1/prezentari', { key, body: { ...makeSubmission(), ...over } });
    expect(res.status).toBe(422);
    const { detail } = (await json(res)) as { detail: Array<Record<string, unknown>> };
    expect(detail[0]?.loc).toEqual(loc);
    for (const entry of detail) expect(Object.keys(entry).sort()).toEqual(['loc', 'msg', 'type']);
  });

  it('a missing required field names it', async () => {
    const { vin: _omit, ...rest } = makeSubmission();
    const res = await t.call('POST', '/v1/prezentari', { key, body: rest });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await json(res))).toContain('"vin"');
  });

  it('never echoes the input: a password in a malformed body stays out of the answer', async () => {
    const body = { ...makeSubmission(), prestatii: 'bad', reg_credentials: { username: 'u', password: CANARY } };
    const res = await t.call('POST', '/v1/prezentari', { key, body });
    expect(res.status).toBe(422);
    expect(await res.text()).not.toContain(CANARY);
    const broken = await t.call('POST', '/v1/prezentari', { key, body: `{"reg_credentials":{"password":"${CANARY}"` });
    expect(await broken.text()).not.toContain(CANARY);
  });

  it('an oversized body is a 413 in the error envelope, and the process stays up', async () => {
    const res = await t.call('POST', '/v1/prezentari', { key, body: { ...makeSubmission(), b64Image: 'A'.repeat(300_000) } });
    expect(res.status).toBe(413);
    expect(await json(res)).toMatchObject({ status: 413, cod: 'PREA_MARE' });
    expect((await t.call('POST', '/v1/prezentari', { key, body: makeSubmission() })).status).toBe(200);
  });

  it('over-long strings and too many items are shape errors, not stored', async () => {
    const before = await count();
    expect((await t.call('POST', '/v1/prezentari', { key, body: { ...makeSubmission(), vin: 'A'.repeat(1000) } })).status).toBe(422);
    const many = Array.from({ length: 201 }, () => ({ cod_prestatie: 'OE-1' }));
    expect((await t.call('POST', '/v1/prezentari', { key, body: { ...makeSubmission(), prestatii: many } })).status).toBe(422);
    expect(await count()).toBe(before);
  });

  it('the dry run answers shape errors the same way', async () => {
    const res = await t.call('POST', '/v1/prezentari/valideaza', { key, body: '{nope' });
    expect(res.status).toBe(422);
    expect(Object.keys(await json(res))).toEqual(['detail']);
  });
});

describe('api_prezentari audits every call of the submission API', () => {
  it('including shape errors and missing ids, with the HTTP status and the request id', async () => {
    const calls = [
      await t.call('POST', '/v1/prezentari', { key, body: '{oops' }),
      await t.call('GET', '/v1/prezentari/999999', { key }),
      await t.call('POST', '/v1/prezentari', { key, body: makeSubmission() }),
    ];
    await t.ctx.journal.flush();
    for (const [res, status] of [
      [calls[0]!, 422],
      [calls[1]!, 404],
      [calls[2]!, 200],
    ] as const) {
      const [event] = await t.ctx.sql`SELECT data FROM app_events WHERE event = 'api_prezentari' AND request_id = ${res.headers.get('x-request-id')!}`;
      expect(event?.data).toMatchObject({ http_status: status });
    }
  });
});
