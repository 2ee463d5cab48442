import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/domain/canonical';
import { legacyIdempotencyKey } from '../../src/domain/idempotency';
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
    expect(Object.keys(body)).toEqual(['submission_id', 'status', 'erori', 'nemapate', 'motiv', 'duplicate', 'reactivated']);
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

describe('idempotency', () => {
  it('twenty concurrent posts of the same content produce exactly one row', async () => {
    const body = makeSubmission({ odometruFinal: 777_777 });
    const results = await Promise.all(Array.from({ length: 20 }, () => post(body).then(json)));
    const ids = new Set(results.map((r) => r.submission_id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.duplicate === false)).toHaveLength(1);
    const [{ n }] = (await t.ctx.sql`SELECT count(*)::int AS n FROM submissions WHERE payload_json->>'odometruFinal' = '777777'`) as unknown as [{ n: number }];
    expect(n).toBe(1);
  });

  it('a duplicate of a non-error submission changes nothing and says so', async () => {
    const body = makeSubmission();
    const first = await json(await post(body));
    const [before] = await t.ctx.sql`SELECT updated_at, status FROM submissions WHERE id = ${first.submission_id as number}`;
    const again = await json(await post({ ...body, reg_credentials: { username: 'x', password: 'y' } }));
    expect(again).toMatchObject({ submission_id: first.submission_id, status: 'queued', duplicate: true, reactivated: false });
    const [after] = await t.ctx.sql`SELECT updated_at, status, reg_creds_enc FROM submissions WHERE id = ${first.submission_id as number}`;
    expect(after?.updated_at).toEqual(before?.updated_at);
    expect(after?.reg_creds_enc).toBeNull();
  });

  it('the same content in another account is another submission', async () => {
    const other = await t.createKey(await t.createAccount('Alt service'));
    const body = makeSubmission();
    const a = await json(await post(body));
    const b = await json(await post(body, other));
    expect(b.submission_id).not.toBe(a.submission_id);
    expect(b.duplicate).toBe(false);
  });

  it('finds rows stored with the older key form (before account scoping)', async () => {
    const body = makeSubmission();
    const content = canonicalize(body);
    const [legacy] = await t.ctx.sql<{ id: number }[]>`
      INSERT INTO submissions (account_id, status, payload_json, idempotency_key, vin, nr_inm, data_prestatie)
      VALUES (${accountId}, 'sent', ${JSON.stringify(content)}::jsonb, ${legacyIdempotencyKey(content)}, ${content.vin}, ${content.nrInm}, ${content.dataPrestatie})
      RETURNING id`;
    const res = await json(await post(body));
    expect(res).toMatchObject({ submission_id: Number(legacy!.id), status: 'sent', duplicate: true });
  });
});

describe('a duplicate of an error submission reactivates it', () => {
  it('compare-and-set to queued, new credentials on the submission and the account, session epoch moved', async () => {
    const body = makeSubmission();
    const first = await json(await post(body));
    const id = first.submission_id as number;
    await t.ctx
      .sql`UPDATE submissions SET status = 'error', reg_error = ${JSON.stringify({ cod: 'REG_LOGIN_RESPINS', cauza: 'parolă greșită' })}::jsonb, attempts = 1 WHERE id = ${id}`;
    const [{ session_epoch: epochBefore }] = (await t.ctx.sql`SELECT session_epoch FROM accounts WHERE id = ${accountId}`) as unknown as [{ session_epoch: number }];

    const res = await json(await post({ ...body, reg_credentials: { username: 'u2', password: 'NouaParola1' } }));
    expect(res).toMatchObject({ submission_id: id, status: 'queued', reactivated: true, duplicate: true });
    expect(res.motiv).toMatch(/reactivat/i);
    expect((res.erori as unknown[]).length).toBeGreaterThan(0);

    const [row] = await t.ctx.sql<{ status: string; reg_creds_enc: string; attempts: number }[]>`SELECT status, reg_creds_enc, attempts FROM submissions WHERE id = ${id}`;
    expect(row).toMatchObject({ status: 'queued', attempts: 0 });
    expect(JSON.parse(t.ctx.keyring.decrypt(row!.reg_creds_enc))).toEqual({ username: 'u2', password: 'NouaParola1' });
    const [account] = await t.ctx.sql<{ session_epoch: number; reg_creds_enc: string }[]>`SELECT session_epoch, reg_creds_enc FROM accounts WHERE id = ${accountId}`;
    expect(account!.session_epoch).toBe(epochBefore + 1);
    expect(JSON.parse(t.ctx.keyring.decrypt(account!.reg_creds_enc)).username).toBe('u2');
  });

  it('concurrent duplicates reactivate it exactly once', async () => {
    const body = makeSubmission();
    const id = (await json(await post(body))).submission_id as number;
    await t.ctx.sql`UPDATE submissions SET status = 'error' WHERE id = ${id}`;
    const [{ session_epoch: before }] = (await t.ctx.sql`SELECT session_epoch FROM accounts WHERE id = ${accountId}`) as unknown as [{ session_epoch: number }];
    const results = await Promise.all(Array.from({ length: 10 }, () => post(body).then(json)));
    expect(results.filter((r) => r.reactivated === true)).toHaveLength(1);
    expect(results.every((r) => r.status === 'queued' && r.submission_id === id)).toBe(true);
    const [{ session_epoch: after }] = (await t.ctx.sql`SELECT session_epoch FROM accounts WHERE id = ${accountId}`) as unknown as [{ session_epoch: number }];
    expect(after).toBe(before + 1);
  });
});
