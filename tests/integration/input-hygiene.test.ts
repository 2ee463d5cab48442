import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { csvFile, upload } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';

// Issue 9, input hygiene: every bad input is a 4xx with a Romanian message that repeats
// nothing of what was sent, and nothing reaches PostgreSQL that it cannot store.

let t: TestApp;
let key: string;
const CANARY = 'CanarHygiena7x';
const NUL = '\u0000';
const LONE = '\ud800';

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_MAX_IMAGE_BYTES: String(9 * 1024 * 1024), GATEWAY_MAX_JSON_BYTES: String(13 * 1024 * 1024) });
  key = await t.createKey(await t.createAccount());
});
afterAll(() => t.close());

const count = async (table = 'submissions') => Number((await t.ctx.sql.unsafe(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n);
type Detail = Array<{ type: string; loc: Array<string | number>; msg: string }>;

async function expect422(res: Response, loc: Array<string | number>, type = 'unstorable_char'): Promise<Detail> {
  const text = await res.text();
  expect(res.status, text).toBe(422);
  const detail = (JSON.parse(text) as { detail: Detail }).detail;
  expect(detail[0]).toMatchObject({ type, loc });
  expect(text).not.toContain(CANARY);
  return detail;
}

describe('a NUL or a lone surrogate is refused at the edge, naming the field', () => {
  it.each([
    ['a NUL in vin', { vin: `WDB1234561A65${NUL}21` }, ['body', 'vin']],
    ['a lone surrogate in a name', { prestatii: [{ cod_op_service: 'X1', denumire: `Schimb${LONE}` }] }, ['body', 'prestatii', 0, 'denumire']],
    ['a NUL in b64Image', { b64Image: `QUJD${NUL}` }, ['body', 'b64Image']],
    ['a NUL in a credential', { reg_credentials: { username: 'u', password: `p${NUL}` } }, ['body', 'reg_credentials', 'password']],
  ])('%s: POST /v1/prezentari and the dry run are 422, nothing stored', async (_name, over, loc) => {
    const before = await count();
    for (const path of ['/v1/prezentari', '/v1/prezentari/valideaza']) {
      await expect422(await t.call('POST', path, { key, body: makeSubmission(over as object) }), loc);
    }
    expect(await count()).toBe(before);
  });

  it('in query and path parameters', async () => {
    await expect422(await t.call('GET', '/v1/prezentari?vin=WDB%00', { key }), ['query']);
    await expect422(await t.call('GET', '/v1/audit/export?status=all&date_from=%00', { key }), ['query']);
    await expect422(await t.call('DELETE', '/v1/mapari/A%00B', { key }), ['path']);
    await expect422(await t.call('GET', `/v1/prezentari/1%00`, { key }), ['path']);
  });

  it('in a mapping and a text rule', async () => {
    await expect422(await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: `A${NUL}`, cod_prestatie: 'OE-1' } }), ['body', 'cod_op_service']);
    await expect422(await t.call('POST', '/v1/reguli-text', { key, body: { pattern: `fr${LONE}`, cod_prestatie: 'OE-F' } }), ['body', 'pattern']);
    expect(await count('operation_mappings')).toBe(0);
  });

  it('in an upload: a sheet field is 422; a file name is stored without the character', async () => {
    const file = csvFile([
      ['VIN', 'Nr. înmatriculare', 'Data', 'Km ieșire', 'Cod prestație'],
      ['WDB1234561A654321', 'B1', '14.03.2025', '1', 'OE-3'],
    ]);
    await expect422(await upload(t, key, file, 'p.csv', { sheets: [`Foaie${NUL}`] }), ['body', 'sheet']);
    const res = await upload(t, key, file, `p${NUL}.csv`);
    expect(res.status).toBe(201);
  });
});

describe('a spreadsheet cell that cannot be stored holds its row, and the commit goes through', () => {
  // The readers cannot hand over such a cell today (xlsx XML refuses it, a csv with control
  // characters is refused, UTF-16 decoding replaces a lone surrogate), so the row's stored
  // override carries it, as one edited before this check would.
  it('a NUL in a row value: needs_data naming the cell; an edit with a NUL is 422; the commit stores every row', async () => {
    const rows = [
      ['VIN', 'Nr. înmatriculare', 'Data', 'Km ieșire', 'Cod prestație', 'Denumire operație'],
      ['WDB1234561A654321', 'B1', '14.03.2025', '1001', 'OE-3', 'Revizie'],
      ['VF1RFB00X12345678', 'B2', '14.03.2025', '1002', 'OE-3', 'Revizie'],
    ];
    const batchId = await stage(t, key, csvFile(rows), 'nul.csv');
    const sealed = t.ctx.keyring.encrypt(JSON.stringify({ denumire_op: `Revizie${NUL}`, nrInm: `B${LONE}1` }));
    await t.ctx.sql`UPDATE import_rows SET override_json = ${sealed} WHERE batch_id = ${batchId} AND row_index = 1`;
    // Any later edit of the row derives it again, with what its override holds.
    expect((await t.call('POST', `/v1/import/${batchId}/rand/1/editeaza`, { key, body: { odometruFinal: '1001' } })).status).toBe(200);

    const p = await preview(t, key, batchId);
    const held = p.rows.find((r) => r.row_index === 1)!;
    expect(held.state).toBe('needs_data');
    expect(held.erori.map((e) => [e.cod, e.field])).toEqual(
      expect.arrayContaining([
        ['TEXT_NEPERMIS', 'nrInm'],
        ['TEXT_NEPERMIS', 'prestatii'],
      ]),
    );
    expect(held.erori.find((e) => e.field === 'prestatii')!.cauza).toContain('coloana 6');
    expect(p.rows.find((r) => r.row_index === 2)!.state).toBe('ok');

    await expect422(await t.call('POST', `/v1/import/${batchId}/rand/2/editeaza`, { key, body: { nrInm: `B${NUL}9` } }), ['body', 'nrInm']);

    const after = await preview(t, key, batchId);
    const res = await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: { n_confirmed: after.n_to_commit, rows_hash: after.rows_hash } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await json(res)).inserted).toBe(2);
  });
});

describe('b64Image: checked in linear time, with a documented size limit', () => {
  it('a valid 8 MB photo is accepted and queued, quickly', async () => {
    const photo = Buffer.alloc(8 * 1024 * 1024, 7).toString('base64');
    const started = performance.now();
    const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ b64Image: photo }) });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await json(res)).status).toBe('queued');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('a photo over GATEWAY_MAX_IMAGE_BYTES is a 413 IMAGINE_PREA_MARE, nothing stored', async () => {
    const before = await count();
    const photo = Buffer.alloc(9 * 1024 * 1024 + 3, 7).toString('base64');
    const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ b64Image: photo }) });
    expect(res.status).toBe(413);
    expect((await json(res)).cod).toBe('IMAGINE_PREA_MARE');
    expect(await count()).toBe(before);
  });

  it('invalid base64 of several million characters holds the submission as needs_data (no stack overflow)', async () => {
    const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ b64Image: `${'A'.repeat(6_000_000)}*` }) });
    expect(res.status).toBe(200);
    expect((await json(res)).status).toBe('needs_data');
  });
});

describe('JSON bodies: a limit of their own, and no nesting deeper than a schema needs', () => {
  it('a body over GATEWAY_MAX_JSON_BYTES is a 413', async () => {
    const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ b64Image: 'A'.repeat(14 * 1024 * 1024) }) });
    expect(res.status).toBe(413);
  });

  it('a deeply nested body is refused before it is parsed, and stalls nothing', async () => {
    const deep = '['.repeat(6_000_000) + ']'.repeat(6_000_000);
    const started = performance.now();
    const res = await t.call('POST', '/v1/prezentari', { key, body: deep });
    const took = performance.now() - started;
    const detail = await expect422(res, ['body'], 'json_too_complex');
    expect(detail[0]!.msg).toMatch(/niveluri/);
    expect(took).toBeLessThan(1_000);
  });

  it('a body with too many values is refused before it is parsed', async () => {
    const res = await t.call('POST', '/v1/prezentari', { key, body: `{"prestatii":[${'0,'.repeat(200_000)}0]}` });
    await expect422(res, ['body'], 'json_too_complex');
  });
});

describe('422 answers repeat nothing that was sent, in Romanian', () => {
  it('malformed JSON: the position, never the text around it', async () => {
    const res = await t.call('POST', '/v1/conturi/reg-creds', { key, body: `{"username": "u", "password": ${CANARY}}` });
    const detail = await expect422(res, ['body'], 'json_invalid');
    expect(detail[0]!.msg).toMatch(/^JSON invalid( la poziția \d+)?\.$/);
  });

  it('unknown keys are not named', async () => {
    const res = await t.call('POST', '/v1/import/1/rand/1/revizuire', { key, body: { include: true, [CANARY]: 1 } });
    const detail = await expect422(res, ['body'], 'unrecognized_keys');
    expect(detail[0]!.msg).toBe('Obiectul conține câmpuri necunoscute.');
  });

  it('a wrong type is described in Romanian', async () => {
    const res = await t.call('POST', '/v1/prezentari', { key, body: { ...makeSubmission(), vin: 12 } });
    const detail = await expect422(res, ['body', 'vin'], 'invalid_type');
    expect(detail[0]!.msg).toMatch(/așteptat șir/);
  });

  it('prototype keys and huge numbers are a plain answer, never a 5xx', async () => {
    for (const body of [
      `{"__proto__": {"polluted": 1}, "constructor": {"prototype": 1}}`,
      JSON.stringify({ ...makeSubmission(), odometruFinal: 1e308 }),
      JSON.stringify({ ...makeSubmission(), odometruFinal: -1e308 }),
    ]) {
      const res = await t.call('POST', '/v1/prezentari', { key, body });
      expect(res.status).toBeLessThan(500);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
