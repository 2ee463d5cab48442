import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSubmission } from '../helpers/factories';
import { json, startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let key: string;
let otherKey: string;
let accountOneKey: string;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
  otherKey = await t.createKey(await t.createAccount('Altul'));
  accountOneKey = await t.createKey(1);
});
afterAll(() => t.close());

const create = async (over = {}, k = key) => (await json(await t.call('POST', '/v1/prezentari', { key: k, body: makeSubmission(over) }))).submission_id as number;
const setStatus = (id: number, status: string) => t.ctx.sql`UPDATE submissions SET status = ${status}, purge_after = now() + interval '30 days' WHERE id = ${id}`;

describe('GET /v1/prezentari/{id}', () => {
  it('returns the allow-list only: no payload, key, image or credentials', async () => {
    const id = await create({ b64Image: 'QUJDRA==', reg_credentials: { username: 'u', password: 'ParolaAscunsa' } });
    const res = await t.call('GET', `/v1/prezentari/${id}`, { key });
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const secret of ['ParolaAscunsa', 'QUJDRA', 'payload', 'idempotency', 'reg_creds']) expect(text).not.toContain(secret);
    const body = JSON.parse(text) as Record<string, unknown>;
    for (const k of [
      'submission_id',
      'status',
      'vin',
      'nrInm',
      'dataPrestatie',
      'prestatii',
      'motiv',
      'nemapate',
      'erori',
      'reg_error',
      'batch_id',
      'row_index',
      'created_at',
      'updated_at',
    ]) {
      expect(body).toHaveProperty(k);
    }
    expect(body.prestatii).toEqual([{ cod_prestatie: 'OE-3', denumire: 'REVIZIE PERIODICĂ', cod_client: 'OE-3', sursa: 'nomenclator' }]);
  });

  it('renders an older plain-string reg_error in the three-level form', async () => {
    const id = await create();
    await t.ctx.sql`UPDATE submissions SET status = 'error', reg_error = ${JSON.stringify('Serviciu indisponibil')}::jsonb WHERE id = ${id}`;
    const body = await json(await t.call('GET', `/v1/prezentari/${id}`, { key }));
    expect(body.reg_error).toMatchObject({ cod: 'REG_EROARE', cauza: 'Serviciu indisponibil', problema: expect.any(String), fix: expect.any(String) });
  });

  it("another account's id gives a 404 byte-identical to a missing id", async () => {
    const id = await create();
    const foreign = await t.call('GET', `/v1/prezentari/${id}`, { key: otherKey });
    const missing = await t.call('GET', '/v1/prezentari/999999999', { key: otherKey });
    const garbage = await t.call('GET', '/v1/prezentari/abc', { key: otherKey });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(garbage.status).toBe(404);
    const [a, b, c] = [await foreign.text(), await missing.text(), await garbage.text()];
    expect(a).toBe(b);
    expect(a).toBe(c);
    expect(a).not.toContain(String(id));
    expect(a).not.toContain(foreign.headers.get('x-request-id')!);
  });

  it('a row with a NULL account belongs to account 1 only', async () => {
    const id = await create();
    await t.ctx.sql`UPDATE submissions SET account_id = NULL WHERE id = ${id}`;
    expect((await t.call('GET', `/v1/prezentari/${id}`, { key: accountOneKey })).status).toBe(200);
    expect((await t.call('GET', `/v1/prezentari/${id}`, { key })).status).toBe(404);
    const list = await json(await t.call('GET', '/v1/prezentari?limit=500', { key: accountOneKey }));
    expect((list.items as Array<{ submission_id: number }>).map((i) => i.submission_id)).toContain(id);
    expect((await t.call('DELETE', `/v1/prezentari/${id}`, { key })).status).toBe(404);
    expect((await t.call('DELETE', `/v1/prezentari/${id}`, { key: accountOneKey })).status).toBe(200);
  });

  it('a row with a NULL account is the one account 1 finds when it posts the same content again', async () => {
    const body = makeSubmission({ vin: 'WVWZZZ1JZXW000888' });
    const id = await create(body, accountOneKey);
    await t.ctx.sql`UPDATE submissions SET account_id = NULL WHERE id = ${id}`;
    expect(await create(body, accountOneKey)).toBe(id);
    expect(await create(body, key)).not.toBe(id);
  });
});

describe('GET /v1/prezentari', () => {
  it('filters by status, date range, vin and batch, and pages with a cursor', async () => {
    const listKey = await t.createKey(await t.createAccount('Lista'));
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push(await create({ dataPrestatie: `2025-01-0${i + 1}`, vin: i === 4 ? 'WVWZZZ1JZXW000001' : 'WDB1234561A654321' }, listKey));
    await setStatus(ids[0]!, 'error');
    await t.ctx.sql`UPDATE submissions SET batch_id = 42 WHERE id = ${ids[1]!}`;

    const page1 = await json(await t.call('GET', '/v1/prezentari?limit=2', { key: listKey }));
    expect((page1.items as Array<{ submission_id: number }>).map((i) => i.submission_id)).toEqual([ids[4], ids[3]]);
    const page2 = await json(await t.call('GET', `/v1/prezentari?limit=2&cursor=${page1.next_cursor as string}`, { key: listKey }));
    expect((page2.items as Array<{ submission_id: number }>).map((i) => i.submission_id)).toEqual([ids[2], ids[1]]);
    const page3 = await json(await t.call('GET', `/v1/prezentari?limit=2&cursor=${page2.next_cursor as string}`, { key: listKey }));
    expect(page3.next_cursor).toBeNull();

    const only = async (q: string) =>
      ((await json(await t.call('GET', `/v1/prezentari?${q}`, { key: listKey }))).items as Array<{ submission_id: number }>).map((i) => i.submission_id);
    expect(await only('status=error')).toEqual([ids[0]]);
    expect(await only('date_from=2025-01-02&date_to=2025-01-03')).toEqual([ids[2], ids[1]]);
    expect(await only('vin=wvwzzz1jzxw000001')).toEqual([ids[4]]);
    expect(await only('batch_id=42')).toEqual([ids[1]]);
  });

  it('a page of more than 100 rows (read in parts of 100) is the same page: in order, none twice, its cursor after its last, none past the end', async () => {
    const account = await t.createAccount('Lista mare');
    const pageKey = await t.createKey(account);
    await t.ctx.sql`
      INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, nemapate, created_at, updated_at)
      SELECT ${account}, 'sent', '{}'::jsonb, 'WDB' || lpad(i::text, 14, '0'), 'B' || lpad(i::text, 6, '0') || 'X', '2025-01-01', ${`parti-${account}-`} || i, '[]'::jsonb, '[]'::jsonb, now(), now()
      FROM generate_series(1, 260) AS i`;
    // A text with what String.replace would read as patterns comes back as it is.
    const motiv = 'Preț $& $1 $$ $` final';
    await t.ctx.sql`UPDATE submissions SET motiv = ${motiv} WHERE account_id = ${account} AND idempotency_key = ${`parti-${account}-260`}`;
    const all = (await t.ctx.sql<{ id: number }[]>`SELECT id FROM submissions WHERE account_id = ${account} ORDER BY id DESC`).map((r) => Number(r.id));
    const page = async (q: string) => {
      const res = await t.call('GET', `/v1/prezentari?${q}`, { key: pageKey });
      expect(res.headers.get('content-type')).toContain('application/json');
      const body = await json(res);
      return {
        ids: (body.items as Array<{ submission_id: number }>).map((i) => i.submission_id),
        next: body.next_cursor as string | null,
        first: (body.items as Array<Record<string, unknown>>)[0],
      };
    };
    const first = await page('limit=250');
    expect(first.ids).toEqual(all.slice(0, 250));
    expect(first.first).toMatchObject({ submission_id: all[0], status: 'sent', vin: 'WDB00000000000260', motiv });
    const rest = await page(`limit=250&cursor=${first.next}`);
    expect(rest).toMatchObject({ ids: all.slice(250), next: null });
    // Exactly two whole parts, and nothing after them: no cursor.
    expect(await page(`limit=200&cursor=${(await page('limit=60')).next}`)).toMatchObject({ ids: all.slice(60), next: null });
    expect((await page('limit=500')).ids).toEqual(all);
  });

  it('account_id must equal the key account (400), bad parameters are 422', async () => {
    const res = await t.call('GET', '/v1/prezentari?account_id=1', { key });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ status: 400, cod: 'CERERE_INVALIDA' });
    for (const q of ['limit=501', 'limit=0', 'limit=abc', 'status=bogus', 'date_from=2025-13', 'batch_id=-1']) {
      expect((await t.call('GET', `/v1/prezentari?${q}`, { key })).status, q).toBe(422);
    }
    expect((await t.call('GET', '/v1/prezentari?cursor=%%%', { key })).status).toBe(400);
  });
});

describe('DELETE and requeue: scope first, then state', () => {
  it('deletes an allowed state and refuses sending/sent with a 409 reason', async () => {
    const id = await create();
    expect((await t.call('DELETE', `/v1/prezentari/${id}`, { key: otherKey })).status).toBe(404);
    expect(await json(await t.call('DELETE', `/v1/prezentari/${id}`, { key }))).toEqual({ submission_id: id, deleted: true, previous_status: 'queued' });
    expect((await t.call('GET', `/v1/prezentari/${id}`, { key })).status).toBe(404);

    for (const status of ['sending', 'sent']) {
      const other = await create();
      await setStatus(other, status);
      const foreign = await t.call('DELETE', `/v1/prezentari/${other}`, { key: otherKey });
      expect(foreign.status).toBe(404);
      const res = await t.call('DELETE', `/v1/prezentari/${other}`, { key });
      expect(res.status).toBe(409);
      expect(await json(res)).toMatchObject({ status: 409, cod: 'CONFLICT_STARE', cauza: expect.any(String) });
    }
  });

  it('requeues an error submission and clears purge_after', async () => {
    const id = await create();
    await setStatus(id, 'error');
    expect((await t.call('POST', `/v1/prezentari/${id}/repune`, { key: otherKey })).status).toBe(404);
    const res = await t.call('POST', `/v1/prezentari/${id}/repune`, { key });
    expect(await json(res)).toEqual({ submission_id: id, status: 'queued', previous_status: 'error' });
    const [row] = await t.ctx.sql`SELECT status, purge_after FROM submissions WHERE id = ${id}`;
    expect(row).toMatchObject({ status: 'queued', purge_after: null });
  });

  it('refuses to requeue queued, sending or sent (409) and a still-invalid held one', async () => {
    for (const status of ['queued', 'sending', 'sent']) {
      const id = await create();
      await setStatus(id, status);
      expect((await t.call('POST', `/v1/prezentari/${id}/repune`, { key })).status, status).toBe(409);
    }
    const held = await create({ vin: 'BAD' });
    const res = await t.call('POST', `/v1/prezentari/${held}/repune`, { key });
    expect(res.status).toBe(409);
    expect((await json(res)).cauza as string).toMatch(/VIN/i);
  });

  it('requeues a needs_mapping submission once its code is mapped', async () => {
    const id = await create({ prestatii: [{ cod_op_service: 'ULEI', denumire: 'Schimb ulei' }] });
    expect((await t.call('POST', `/v1/prezentari/${id}/repune`, { key })).status).toBe(409);
    const accountId = (await t.ctx.sql`SELECT account_id FROM submissions WHERE id = ${id}`)[0]!.account_id as number;
    await t.ctx.sql`INSERT INTO operation_mappings (account_id, cod_op_service, cod_prestatie) VALUES (${accountId}, 'ULEI', 'OE-2')`;
    expect(await json(await t.call('POST', `/v1/prezentari/${id}/repune`, { key }))).toMatchObject({ status: 'queued' });
  });
});
