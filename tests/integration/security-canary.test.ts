import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSubmission } from '../helpers/factories';
import { startTestApp, type TestApp } from '../helpers/app';

const CANARY = 'CanaryPass-7c1e9b42';
const VIN = 'WDB1234561A658888';

describe('a canary password and a full VIN never leak', () => {
  let t: TestApp;
  let key: string;
  const responses: string[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    key = await t.createKey(await t.createAccount());
  });
  afterAll(() => t.close());

  it('appears in no response, no app_events row and no log file', async () => {
    const creds = { username: 'service-ab12', password: CANARY };
    const calls: Array<[string, string, unknown]> = [
      ['POST', '/v1/prezentari', makeSubmission({ vin: VIN, reg_credentials: creds })],
      ['POST', '/v1/prezentari', makeSubmission({ vin: VIN, reg_credentials: creds })],
      ['POST', '/v1/prezentari', { ...makeSubmission({ vin: VIN }), prestatii: 'x', reg_credentials: creds }],
      ['POST', '/v1/prezentari', `{"reg_credentials": {"password": "${CANARY}"}, `],
      ['POST', '/v1/prezentari/valideaza', makeSubmission({ vin: VIN, reg_credentials: creds })],
      ['POST', '/v1/prezentari', makeSubmission({ vin: 'BAD', reg_credentials: creds, prestatii: [{ cod_op_service: 'X', denumire: CANARY }] })],
      ['POST', '/v1/conturi/reg-creds', creds],
      ['POST', '/v1/conturi/reg-creds', { username: 'x', password: 5, note: CANARY }],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.call(method, path, { key, body });
      responses.push(await res.text());
    }
    responses.push(await (await t.call('GET', '/v1/prezentari', { key })).text());
    responses.push(await (await t.call('GET', '/v1/audit/export?status=all', { key })).text());
    responses.push(await (await t.call('GET', '/v1/ping', { headers: { 'X-API-Key': CANARY } })).text());
    for (const text of responses) expect(text).not.toContain(CANARY);

    await t.ctx.journal.flush();
    const events = await t.ctx.sql`SELECT event, data::text AS data FROM app_events`;
    expect(events.length).toBeGreaterThan(5);
    for (const e of events) {
      expect(e.data ?? '').not.toContain(CANARY);
      expect(e.data ?? '').not.toContain(VIN);
    }
    const logDir = join(t.dataDir, 'logs');
    const files = readdirSync(logDir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const text = readFileSync(join(logDir, f), 'utf8');
      expect(text).toContain('api_prezentari');
      expect(text).not.toContain(CANARY);
      expect(text).not.toContain(VIN);
    }
  });
});
