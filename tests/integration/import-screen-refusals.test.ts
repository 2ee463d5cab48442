import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/errors';
import { startTestApp, type TestApp } from '../helpers/app';
import { compoundFile, csvFile, HEADER } from '../helpers/import-files';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';
import { batchOf, stagedBatch, webStaged, webUpload } from '../helpers/web-import';

// Issue 19's bad input and safety: every file the API refuses gets its catalog words in place
// (never an error page), the upload's limits and admission are the API's, and every fragment
// refuses another account's batch as a missing one, a staging or committed batch with a 409
// notice, a NUL or an oversized field with a notice, and a stranger with the sign-in.
let t: TestApp;
let b: ReturnType<typeof browser>;
let other: ReturnType<typeof browser>;
let accountId: number;

const csv = (n: number) =>
  csvFile([HEADER, ...Array.from({ length: n }, (_, i) => [`WDB1234561A8${String(i).padStart(5, '0')}`, `B-${i}-XYZ`, '14.03.2025', '', String(1000 + i), 'OE-3', 'Revizie'])]);
const hx = { 'HX-Request': 'true' };

beforeAll(async () => {
  t = await startTestApp({ ...FAST_SCRYPT, GATEWAY_MAX_BODY_BYTES: String(256 * 1024), GATEWAY_IMPORT_MAX_ROWS: '50' });
  accountId = await t.createAccount();
  b = browser(t);
  await b.login((await makeUser(t, accountId)).email);
  await b.get('/');
  other = browser(t);
  await other.login((await makeUser(t, await t.createAccount('Alt service'))).email);
  await other.get('/');
});
afterAll(() => t.close());

describe('a file that cannot be imported: the API’s words, in place', () => {
  const cases: Array<[string, Buffer, string, number, keyof typeof CATALOG]> = [
    ['empty', Buffer.alloc(0), 'gol.csv', 422, 'IMPORT_FISIER_GOL'],
    ['.xls (Excel 97)', compoundFile(['Workbook']), 'vechi.xls', 415, 'IMPORT_TIP_NESUPORTAT'],
    ['password-protected', compoundFile(['EncryptionInfo', 'EncryptedPackage']), 'parolat.xlsx', 422, 'IMPORT_PAROLAT'],
    ['a PDF', Buffer.from('%PDF-1.4\n1 0 obj\n'), 'raport.pdf', 415, 'IMPORT_TIP_NESUPORTAT'],
  ];
  it.each(cases)('%s', async (_name, bytes, filename, status, cod) => {
    const res = await webUpload(t, b, bytes, filename);
    const text = await res.text();
    expect(res.status, text).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(text).toContain('class="notice error"');
    expect(text).toContain(CATALOG[cod].problema);
    expect(text).not.toContain('<html');
  });

  it('too many rows: taken, then told on its screen in the API’s words once the stager read it', async () => {
    const id = batchOf(await webUpload(t, b, csv(60), 'mare.csv'));
    expect(await stagedBatch(t, id)).toBe('failed');
    const page = await (await b.get(`/import/${id}`)).text();
    expect(page).toContain('class="notice error"');
    expect(page).toContain(CATALOG.IMPORT_PREA_MULTE_RANDURI.problema);
  });

  it('too large: refused with the size, whatever the type the browser gave', async () => {
    const res = await webUpload(t, b, Buffer.alloc(300 * 1024, 'a'), 'imens.csv');
    expect(res.status).toBe(413);
    expect(await res.text()).toContain(CATALOG.PREA_MARE.problema);
  });

  it('no file: a notice', async () => {
    // The upload's token travels in its header (htmx's): its body is read only after it.
    const res = await b.post('/_import/incarca', {}, { ...hx, 'X-CSRF-Token': b.csrf()! });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain('Alegeți un fișier');
  });

  it('past the account’s files waiting or staging: 429 with Retry-After, the body never read', async () => {
    // As two bodies of the account being read now (GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT, 2).
    const held = [t.ctx.uploads.take(accountId), t.ctx.uploads.take(accountId)];
    try {
      const res = await webUpload(t, b, csv(2), 'al-doilea.csv');
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.text()).toContain(CATALOG.IMPORT_PREA_MULTE_INCARCARI.problema);
    } finally {
      for (const place of held) place.release();
    }
    expect(await webStaged(t, b, csv(2), 'acum.csv')).toBeGreaterThan(0);
  });
});

describe('the fragments of a batch', () => {
  let id: number;
  let committed: number;
  const actions = (batch: number): Array<[string, Record<string, string>]> => [
    [`/_import/${batch}/coloane`, { camp: 'vin' }],
    [`/_import/${batch}/mapare-operatie`, { cod_op_service: 'OE-3', cod_prestatie: 'OE-3' }],
    [`/_import/${batch}/rand/1/editeaza`, { camp: 'vin', valoare: 'WDB1234561A899999' }],
    [`/_import/${batch}/rand/1/revizuire`, { include: '1' }],
    [`/_import/${batch}/confirma`, { numar: '1', rows_hash: 'a'.repeat(64) }],
  ];
  const reads = (batch: number) => [`/import/${batch}`, `/_import/${batch}`, `/_import/${batch}/urmarire`, `/import/${batch}/netrimise?format=csv`];

  beforeAll(async () => {
    id = await webStaged(t, b, csv(3), 'trei.csv');
    committed = await webStaged(t, b, csv(2), 'doi.csv');
    const html = await (await b.get(`/_import/${committed}`, hx)).text();
    const hash = /name="rows_hash" value="([0-9a-f]{64})"/.exec(html)![1]!;
    const n = /Confirmă importul: (\d+|un rând)/.exec(html)![1]!.replace('un rând', '1');
    expect((await b.post(`/_import/${committed}/confirma`, { numar: n, rows_hash: hash }, hx)).status).toBe(200);
  });

  it('another account’s batch is the same 404 as a missing one, for every read and action', async () => {
    const missing = 999_999;
    for (const path of reads(id)) {
      const foreign = await other.get(path, hx);
      const absent = await b.get(path.replace(String(id), String(missing)), hx);
      expect(foreign.status, path).toBe(404);
      expect(await foreign.text(), path).toBe(await absent.text());
    }
    for (const [path, form] of actions(id)) {
      const foreign = await other.post(path, form, hx);
      expect(foreign.status, path).toBe(404);
      expect(await foreign.text(), path).toBe(await (await b.post(path.replace(String(id), String(missing)), form, hx)).text());
    }
  });

  it('a committed batch: every action is a 409 notice', async () => {
    for (const [path, form] of actions(committed)) {
      const res = await b.post(path, form, hx);
      expect(res.status, path).toBe(409);
      expect(await res.text(), path).toContain(CATALOG.IMPORT_DEJA_CONFIRMAT.problema);
    }
  });

  it('a batch still staging: shown with its progress, every action a notice that it is not ready', async () => {
    await t.ctx.sql`UPDATE import_batches SET status = 'staging' WHERE id = ${id}`;
    try {
      const page = await (await b.get(`/import/${id}`)).text();
      expect(page).toContain('Se încarcă fișierul');
      expect(page).toContain('hx-trigger="every 1s"');
      for (const [path, form] of actions(id)) {
        const res = await b.post(path, form, hx);
        expect(res.status, path).toBe(409);
        expect(await res.text(), path).toContain(CATALOG.IMPORT_IN_CURS.problema);
      }
    } finally {
      await t.ctx.sql`UPDATE import_batches SET status = 'staged' WHERE id = ${id}`;
    }
  });

  it('a NUL, an oversized value, a bad view or a wrong field: a notice, nothing written', async () => {
    const before = await (await b.get(`/_import/${id}`, hx)).text();
    for (const [path, form, status] of [
      [`/_import/${id}/rand/1/editeaza`, { camp: 'vin', valoare: 'WDB\u0000' }, 422],
      [`/_import/${id}/rand/1/editeaza`, { camp: 'vin', valoare: 'x'.repeat(501) }, 422],
      [`/_import/${id}/rand/1/editeaza`, { camp: 'parola', valoare: 'x' }, 422],
      [`/_import/${id}/rand/1/editeaza`, { camp: 'vin', valoare: 'x'.repeat(70_000) }, 413],
      [`/_import/${id}/coloane`, { camp: 'vin' }, 422],
      [`/_import/${id}/mapare-operatie`, { cod_op_service: 'OE-3', cod_prestatie: '' }, 422],
      [`/_import/${id}/confirma`, { numar: 'trei', rows_hash: 'a'.repeat(64) }, 422],
      [`/_import/${id}/rand/1/revizuire`, { include: 'poate' }, 422],
    ] as const) {
      const res = await b.post(path, form, hx);
      expect(res.status, `${path} ${JSON.stringify(form).slice(0, 60)}`).toBe(status);
      expect(await res.text()).toContain('class="notice error"');
    }
    expect((await b.get(`/_import/${id}?stare=altceva`, hx)).status).toBe(422);
    expect((await b.get(`/import/${id}/netrimise?format=pdf`)).status).toBe(422);
    expect(await (await b.get(`/_import/${id}`, hx)).text()).toBe(before);
  });

  it('a failed staging: its screen and the earlier imports show its error; actions are refused', async () => {
    const failed = batchOf(await webUpload(t, b, csv(2), 'esuat.csv'));
    const error = { status: 413, cod: 'IMPORT_PREA_MULTE_RANDURI', cauza: 'Fișierul are peste 50 de rânduri.' };
    await t.ctx.sql`UPDATE import_batches SET status = 'failed', error = ${JSON.stringify(error)}::jsonb WHERE id = ${failed}`;
    await t.ctx.sql`DELETE FROM import_rows WHERE batch_id = ${failed}`;
    const page = await (await b.get(`/import/${failed}`)).text();
    expect(page).toContain(CATALOG.IMPORT_PREA_MULTE_RANDURI.problema);
    expect(page).toContain('Fișierul are peste 50 de rânduri.');
    expect(page).not.toContain('hx-trigger="every 1s"');
    const home = await (await b.get('/')).text();
    expect(home).toMatch(/esuat\.csv[\s\S]*?eșuat[\s\S]*?Fișierul are peste 50 de rânduri\./);
    const res = await b.post(`/_import/${failed}/confirma`, { numar: '2', rows_hash: 'a'.repeat(64) }, hx);
    expect(res.status).toBe(409);
    expect(await res.text()).toContain(CATALOG.IMPORT_ESUAT.problema);
  });

  it('signed out: the page and the fragments send to the sign-in', async () => {
    const stranger = browser(t);
    for (const path of reads(id)) {
      expect((await stranger.get(path)).headers.get('location'), path).toBe('/login');
      expect((await stranger.get(path, hx)).headers.get('hx-redirect'), path).toBe('/login');
    }
  });

  it('the column mapping: two columns for one field are refused; a changed field re-renders the samples', async () => {
    const fields = ['vin', 'nrInm', 'dataPrestatie', 'odometruInitial', 'odometruFinal', 'cod_op_service', 'denumire_op'];
    expect(fields).toHaveLength(HEADER.length);
    const twice = await b.postList(
      `/_import/${id}/coloane`,
      fields.map((f, i) => ['camp', i === 1 ? 'vin' : f] as [string, string]),
    );
    expect(twice.status).toBe(422);
    expect(await twice.text()).toContain('Două coloane sunt citite ca același câmp');
    // The odometer column read as nothing: its samples say so, and every row now lacks its odometer.
    const changed = await b.postList(
      `/_import/${id}/coloane`,
      fields.map((f, i) => ['camp', i === 4 ? '' : f] as [string, string]),
    );
    expect(changed.status).toBe(303);
    const html = await (await b.get(`/_import/${id}`, hx)).text();
    expect(html).toContain('<option value="" selected="">— nu se folosește —</option>');
    expect(html).toMatch(/1000<\/span> → <em class="muted">nu se citește<\/em>/);
    expect(html).toMatch(/Date de corectat <span class="n">3<\/span>/);
  });
});
