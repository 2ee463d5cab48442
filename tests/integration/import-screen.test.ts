import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/errors';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvFile, HEADER, xlsxFile } from '../helpers/import-files';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';
import { batchOf, stagedBatch, webStaged, webUpload } from '../helpers/web-import';

// Issue 19: the import screen's happy path over HTTP (upload, columns, a code mapped once, a
// cell corrected, commit by the typed count, the rows left out), then its refusals.
let t: TestApp;
let b: ReturnType<typeof browser>;

const rows = (n: number, code = 'SCH-ULEI') =>
  Array.from({ length: n }, (_, i) => [`WDB1234561A7${String(i).padStart(5, '0')}`, `B-${100 + i}-ABC`, '14.03.2025', '', String(154_000 + i), code, 'Schimb ulei']);

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const account = await t.createAccount();
  const user = await makeUser(t, account);
  b = browser(t);
  await b.login(user.email);
  await b.get('/');
});
afterAll(() => t.close());

const screen = async (id: number, query = '') => (await b.get(`/_import/${id}${query}`, { 'HX-Request': 'true' })).text();
const hashOf = (html: string) => /name="rows_hash" value="([0-9a-f]{64})"/.exec(html)?.[1] ?? '';
const toCommit = (html: string) => Number(/Confirmă importul: (\d+|un rând)/.exec(html)?.[1]?.replace('un rând', '1') ?? 0);

describe('the import screen, step by step', () => {
  it('a workbook of several sheets: the sheet typed is the one read, and the screen lists the others', async () => {
    const book = await xlsxFile({ Rezumat: [['Raport lunar'], ['Total', 3]], Martie: [HEADER, ...rows(2)] });
    const res = await webUpload(t, b, book, 'lunar.xlsx', { sheet: 'Martie' });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await stagedBatch(t, batchOf(res))).toBe('staged');
    const page = await (await b.get(`/import/${batchOf(res)}`)).text();
    expect(page).toContain('Foile fișierului:');
    expect(page).toContain('„Martie” (importată, 2 rânduri)');
    expect(page).toContain('„Rezumat” (neimportată');
    // A sheet the file does not have: the stager says so, on the batch's screen.
    const unknown = batchOf(await webUpload(t, b, book, 'lunar.xlsx', { sheet: 'Aprilie' }));
    expect(await stagedBatch(t, unknown)).toBe('failed');
    expect(await (await b.get(`/import/${unknown}`)).text()).toContain('foile fișierului: Rezumat, Martie');
  });

  it('uploads a csv with a Romanian header and opens its screen with the columns, samples and chips', async () => {
    const res = await webUpload(t, b, csvFile([HEADER, ...rows(3)]), 'export.csv');
    expect(res.status, await res.clone().text()).toBe(200);
    const id = batchOf(res);
    expect(await stagedBatch(t, id)).toBe('staged');
    const page = await (await b.get(`/import/${id}`)).text();
    expect(page).toContain('Import: export.csv');
    expect(page).toContain('Serie șasiu (VIN)');
    expect(page).toContain('14.03.2025</span> → <strong class="mono">14.03.2025');
    expect(page).toContain('Maparea sugerată');
    expect(page).toMatch(/Cod nemapat <span class="n">3<\/span>/);
    // The home lists it among the earlier imports.
    expect(await (await b.get('/')).text()).toContain(`href="/import/${id}"`);
  });

  it('a header changed since its mapping was saved: the drift names the new and the missing columns', async () => {
    const saved = await webStaged(t, b, csvFile([HEADER, ...rows(1)]), 'inainte.csv');
    const fields = ['vin', 'nrInm', 'dataPrestatie', 'odometruInitial', 'odometruFinal', 'cod_op_service', 'denumire_op'];
    expect(
      (
        await b.postList(
          `/_import/${saved}/coloane`,
          fields.map((f) => ['camp', f] as [string, string]),
        )
      ).status,
    ).toBe(303);
    const header = [...HEADER.filter((h) => h !== 'Km intrare'), 'Mecanic'];
    const data = rows(1).map((r) => [...r.filter((_, i) => HEADER[i] !== 'Km intrare'), 'Ion']);
    const drifted = await webStaged(t, b, csvFile([header, ...data]), 'dupa.csv');
    const html = await screen(drifted);
    expect(html).toContain('Antetul diferă de cel pentru care a fost salvată maparea.');
    expect(html).toContain('Coloane noi: „Mecanic”.');
    expect(html).toContain('Coloane care lipsesc: „Km intrare”.');
  });

  it('maps one code once for many rows, corrects a cell, commits by the typed count', async () => {
    const data = [...rows(4, 'X-REV'), ['SHORT', 'B-1-XYZ', '15.03.2025', '', '1000', 'X-REV', 'Revizie']];
    const id = await webStaged(t, b, csvFile([HEADER, ...data]), 'lot.csv');
    let html = await screen(id);
    expect(html).toContain('X-REV');

    // A serious code is refused without its confirmation; a plain one maps the 4 rows.
    const serious = await b.htmx('POST', `/_import/${id}/mapare-operatie`, { 'Content-Type': 'application/x-www-form-urlencoded' });
    expect(serious.status).toBe(422);
    const refused = await b.post(`/_import/${id}/mapare-operatie`, { cod_op_service: 'X-REV', cod_prestatie: 'R-ODO' }, { 'HX-Request': 'true' });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('consecințe legale');
    const mapped = await b.post(`/_import/${id}/mapare-operatie`, { cod_op_service: 'X-REV', cod_prestatie: 'OE-3' }, { 'HX-Request': 'true' });
    expect(mapped.status).toBe(200);
    html = await mapped.text();
    expect(html).toMatch(/Gata de trimis <span class="n">4<\/span>/);
    expect(html).toContain('Are 5 caractere în loc de 17.');

    // The short VIN is corrected in its cell: its row becomes ready.
    const rowIndex = Number(/id="c-(\d+)-vin" value="SHORT"/.exec(html)?.[1]);
    const edited = await b.post(`/_import/${id}/rand/${rowIndex}/editeaza`, { camp: 'vin', valoare: 'WDB1234561A799999' }, { 'HX-Request': 'true' });
    expect(edited.status).toBe(200);
    html = await edited.text();
    expect(html).toMatch(/Gata de trimis <span class="n">5<\/span>/);

    // A wrong count is refused (409) and nothing is written; the typed right one commits.
    const wrong = await b.post(`/_import/${id}/confirma`, { numar: '4', rows_hash: hashOf(html) }, { 'HX-Request': 'true' });
    expect(wrong.status).toBe(409);
    expect(await wrong.text()).toContain(CATALOG.IMPORT_CONFIRMARE_NUMAR.problema);
    expect(toCommit(html)).toBe(5);
    const done = await b.post(`/_import/${id}/confirma`, { numar: '5', rows_hash: hashOf(html) }, { 'HX-Request': 'true' });
    expect(done.status).toBe(200);
    html = await done.text();
    expect(html).toContain('5 rânduri au intrat în Trimiteri');
    expect(html).toContain('În coadă');

    // Committed: every change is a 409 notice; the left-out download still works.
    const again = await b.post(`/_import/${id}/rand/${rowIndex}/editeaza`, { camp: 'vin', valoare: 'X' }, { 'HX-Request': 'true' });
    expect(again.status).toBe(409);
    expect(await again.text()).toContain(CATALOG.IMPORT_DEJA_CONFIRMAT.problema);
    const csv = await b.get(`/import/${id}/netrimise?format=csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toContain('text/csv');
  });
});
