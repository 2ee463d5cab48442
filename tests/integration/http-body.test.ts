import { request } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSubmission } from '../helpers/factories';
import { startTestApp, type TestApp } from '../helpers/app';

// Over a real @hono/node-server, JSON bodies are read from Node's own request stream.
let t: TestApp;
let key: string;
let server: ServerType;
let port: number;

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_MAX_BODY_BYTES: '50000', GATEWAY_MAX_JSON_BYTES: '50000' });
  key = await t.createKey(await t.createAccount());
  await new Promise<void>((resolve) => {
    server = serve({ fetch: t.app.fetch, port: 0 }, (info) => {
      port = info.port;
      resolve();
    });
  });
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

function post(body: string, options: { chunked?: boolean } = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'X-API-Key': key };
    if (!options.chunked) headers['Content-Length'] = Buffer.byteLength(body);
    const req = request({ host: '127.0.0.1', port, path: '/v1/prezentari', method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    if (options.chunked) {
      // No Content-Length: the limit must hold while the stream is read.
      for (let i = 0; i < body.length; i += 8192) req.write(body.slice(i, i + 8192));
    } else {
      req.write(body);
    }
    req.end();
  });
}

describe('JSON bodies over HTTP', () => {
  it('a body within the limit is parsed and stored', async () => {
    const res = await post(JSON.stringify(makeSubmission({ b64Image: 'QUJD'.repeat(1000) })));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ status: 'queued' });
  });

  it('a declared length over the limit is a 413 before reading', async () => {
    const res = await post(JSON.stringify({ ...makeSubmission(), b64Image: 'A'.repeat(60_000) }));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toMatchObject({ cod: 'PREA_MARE' });
  });

  it('a chunked body that grows past the limit is a 413, and the server keeps serving', async () => {
    const res = await post(JSON.stringify({ ...makeSubmission(), b64Image: 'A'.repeat(60_000) }), { chunked: true });
    expect(res.status).toBe(413);
    expect((await post(JSON.stringify(makeSubmission()))).status).toBe(200);
  });

  it('malformed JSON is still the 422 shape error', async () => {
    const res = await post('{"vin": ');
    expect(res.status).toBe(422);
    expect(Object.keys(JSON.parse(res.text) as object)).toEqual(['detail']);
  });
});
