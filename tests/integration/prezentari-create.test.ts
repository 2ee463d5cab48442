import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSubmission } from '../helpers/factories';
import { json, startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let key: string;
let accountId: number;

beforeAll(async () => {
  t = await startTestApp();
  accountId = await t.createAccount();
  key = await t.createKey(accountId);
});
afterAll(() => t.close());

const post = (body: unknown, k = key) => t.call('POST', '/v1/prezentari', { key: k, body });

describe('POST /v1/prezentari happy path', () => {
  it('queues a valid submission and stores it under the key account', async () => {
    const res = await post(makeSubmission({ odometruFinal: 154200 }));
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ status: 'queued', erori: [], nemapate: [], motiv: null, duplicate: false, reactivated: false });
    expect(body.submission_id).toBeTypeOf('number');
    const [row] = await t.ctx.sql`SELECT account_id, status, vin FROM submissions WHERE id = ${body.submission_id as number}`;
    expect(row).toMatchObject({ account_id: accountId as number, status: 'queued', vin: 'WDB1234561A654321' });
  });

  it('canonicalises before the key: 154200, 154200.0 and "154200.0" are one submission', async () => {
    const base = makeSubmission({ vin: ' wdb1234561a654399 ', odometruFinal: 154200 });
    const a = await json(await post(base));
    const b = await json(await post({ ...base, vin: 'WDB1234561A654399', odometruFinal: 154200.0 }));
    const c = await json(await post({ ...base, odometruFinal: '154200.0', dataPrestatie: ' 2025-03-14 ' }));
    expect(b.submission_id).toBe(a.submission_id);
    expect(c.submission_id).toBe(a.submission_id);
    expect(b.duplicate).toBe(true);
    expect(c).toMatchObject({ duplicate: true, status: 'queued' });
  });
});
