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

const post = (body: unknown) => t.call('POST', '/v1/prezentari', { key, body });

describe('content problems hold the submission (HTTP 200, needs_data)', () => {
  it('stores it with erori in {field, message, cod, problema, cauza, fix} and a motiv', async () => {
    const res = await post(makeSubmission({ vin: 'WDB1234561O65432', odometruFinal: 'o sută', dataPrestatie: '2024-11-30' }));
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.status).toBe('needs_data');
    const erori = body.erori as Array<Record<string, string>>;
    expect(erori.map((e) => e.field).sort()).toEqual(['dataPrestatie', 'odometruFinal', 'vin']);
    for (const e of erori) {
      expect(Object.keys(e).sort()).toEqual(['cauza', 'cod', 'field', 'fix', 'message', 'problema']);
      for (const v of Object.values(e)) expect(typeof v).toBe('string');
    }
    expect(body.motiv).toMatch(/Date invalide/);
    const [row] = await t.ctx.sql`SELECT status, purge_after FROM submissions WHERE id = ${body.submission_id as number}`;
    expect(row?.status).toBe('needs_data');
    expect(row?.purge_after).not.toBeNull();
  });

  it('R-ODO without odometruInitial is needs_data', async () => {
    const body = await json(await post(makeSubmission({ prestatii: [{ cod_prestatie: 'R-ODO' }] })));
    expect(body.status).toBe('needs_data');
    expect((body.erori as Array<{ cod: string }>)[0]?.cod).toBe('ODOMETRU_INITIAL_LIPSA');
  });
});

describe('unmapped operation codes', () => {
  const unmapped = () => makeSubmission({ prestatii: [{ cod_op_service: 'SCHIMB-ULEI', denumire: 'Schimb ulei' }, { cod_prestatie: 'OE-3' }] });

  it('on_unmapped_error false → needs_mapping with nemapate and motiv', async () => {
    const body = await json(await post({ ...unmapped(), on_unmapped_error: false }));
    expect(body).toMatchObject({ status: 'needs_mapping', nemapate: ['SCHIMB-ULEI'] });
    expect(body.motiv).toContain('SCHIMB-ULEI');
  });

  it('on_unmapped_error true → rejected: submission_id null, COD_NEMAPAT, nothing stored', async () => {
    const before = (await t.ctx.sql`SELECT count(*)::int AS n FROM submissions`)[0]!.n;
    const body = await json(await post({ ...unmapped(), on_unmapped_error: true }));
    expect(body).toMatchObject({ submission_id: null, status: 'error', nemapate: ['SCHIMB-ULEI'] });
    expect((body.erori as Array<{ cod: string }>)[0]?.cod).toBe('COD_NEMAPAT');
    expect(body.motiv).toMatch(/\S/);
    expect((await t.ctx.sql`SELECT count(*)::int AS n FROM submissions`)[0]!.n).toBe(before);
  });

  it('absent or null → the account default', async () => {
    expect((await json(await post(unmapped()))).status).toBe('needs_mapping');
    await t.ctx.sql`UPDATE accounts SET on_unmapped_error_default = 1 WHERE id = ${accountId}`;
    expect((await json(await post({ ...unmapped(), on_unmapped_error: null }))).status).toBe('error');
    expect((await json(await post({ ...unmapped(), on_unmapped_error: false }))).status).toBe('needs_mapping');
    await t.ctx.sql`UPDATE accounts SET on_unmapped_error_default = 0 WHERE id = ${accountId}`;
  });

  it('a cod_prestatie outside the nomenclator is held for mapping, never sent', async () => {
    const body = await json(await post(makeSubmission({ prestatii: [{ cod_prestatie: 'oe-99' }] })));
    expect(body).toMatchObject({ status: 'needs_mapping', nemapate: ['OE-99'] });
  });
});

describe('credentials in the request', () => {
  it('are stored encrypted and never echoed', async () => {
    const res = await post(makeSubmission({ reg_credentials: { username: 'service-ab12', password: 'Secret-123!' } }));
    const text = await res.text();
    expect(text).not.toContain('Secret-123!');
    const id = (JSON.parse(text) as { submission_id: number }).submission_id;
    const [row] = await t.ctx.sql<{ reg_creds_enc: string; payload_json: unknown }[]>`SELECT reg_creds_enc, payload_json FROM submissions WHERE id = ${id}`;
    expect(row!.reg_creds_enc).toMatch(/^v1\./);
    expect(row!.reg_creds_enc).not.toContain('Secret');
    expect(JSON.parse(t.ctx.keyring.decrypt(row!.reg_creds_enc))).toEqual({ username: 'service-ab12', password: 'Secret-123!' });
    expect(JSON.stringify(row!.payload_json)).not.toContain('Secret');
  });
});
