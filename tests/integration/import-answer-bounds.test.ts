import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, secondServer, startTestApp, type TestApp } from '../helpers/app';
import { upload, workbookParts, zipFile } from '../helpers/import-files';
import { settled } from '../helpers/import-flow';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

// Issue 32: what a preview, a screen or an export answers is bounded, whatever a file within
// the cell bounds holds. The files are xlsx whose cells point at shared strings of 32,767
// characters: a few kilobytes, every cell at its bound.
let t: TestApp;
let key: string;
let accountId: number;
const CELL = 32_767;

beforeAll(async () => {
  // The large page and the export are costly work (cost-budget.ts): a burst large enough for both.
  t = await startTestApp({ ...FAST_SCRYPT, GATEWAY_IMPORT_FIRST_ROWS: '100000', GATEWAY_COSTLY_BURST_MS: '60000' });
  accountId = await t.createAccount();
  key = await t.createKey(accountId);
});
afterAll(() => t.close());

const letters = (i: number) => {
  let s = '';
  for (let k = i + 1; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(65 + ((k - 1) % 26)) + s;
  return s;
};
const CODES = Array.from({ length: CELL / 2 }, (_, i) => (i % 36).toString(36))
  .join(',')
  .slice(0, CELL);
// Shared strings: 0 a header label at its bound, 1 a VIN, 2 one-letter codes filling a cell, 3 a name of 32,767 „ă”, 4.. short labels.
const STRINGS = [`VIN ${'h'.repeat(CELL - 4)}`, 'WDB1234561A100001', CODES, 'ă'.repeat(CELL), 'Nr', 'Data', 'Km', 'Cod operație', 'Denumire operație'];

/** A workbook of `rows` rows under `header` (indexes of STRINGS), each row's cells given by `row`. */
function workbook(header: number[], rows: number, row: (n: number) => string) {
  const head = `<row r="1">${header.map((s, i) => `<c r="${letters(i)}1" t="s"><v>${s}</v></c>`).join('')}</row>`;
  const body = Array.from({ length: rows }, (_, i) => `<row r="${i + 2}">${row(i + 2)}</row>`).join('');
  const shared = `<sst>${STRINGS.map((s) => `<si><t>${s}</t></si>`).join('')}</sst>`;
  return zipFile([...workbookParts(Buffer.from(`<worksheet><sheetData>${head}${body}</sheetData></worksheet>`)), { name: 'xl/sharedStrings.xml', data: Buffer.from(shared) }]);
}

const dataRow = (n: number) =>
  `<c r="A${n}" t="s"><v>1</v></c><c r="B${n}" t="inlineStr"><is><t>B${n}X</t></is></c><c r="C${n}"><v>45700</v></c><c r="D${n}"><v>${1000 + n}</v></c><c r="E${n}" t="s"><v>2</v></c><c r="F${n}" t="s"><v>3</v></c>`;

async function refused(file: Buffer) {
  const res = await upload(t, key, file, 'bomba.xlsx');
  const body = await json(res);
  expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(413);
  expect(body).toMatchObject({ cod: 'IMPORT_CELULA_PREA_LUNGA', problema: expect.any(String), fix: expect.any(String) });
  return body.cauza as string;
}

async function size(res: Response) {
  expect(res.status, `${res.url} ${await res.clone().text()}`.slice(0, 400)).toBe(200);
  return (await res.arrayBuffer()).byteLength;
}

describe('a few kilobytes cannot make every answer megabytes', () => {
  it('a header of three labels of 32,767 characters (one shared string) is refused: 64 K characters at most, all labels together', async () => {
    const file = workbook([0, 0, 0, 4, 5, 6], 3, dataRow);
    expect(file.length).toBeLessThan(10_000);
    expect(await refused(file)).toBe('Antetul foii „Date” (linia 1) are 98.309 de caractere în total (cel mult 65.536).');
  });

  it('a row whose cells point at the same long shared string is refused past 4 cells at their longest', async () => {
    const wide = (n: number) => `${dataRow(n)}${Array.from({ length: 6 }, (_, i) => `<c r="${letters(6 + i)}${n}" t="s"><v>3</v></c>`).join('')}`;
    expect(await refused(workbook([0, 4, 5, 6, 7, 8], 3, wide))).toBe('Rândul 2 al foii „Date” are 262.154 de caractere (cel mult 131.068).');
  });

  it('rows at their bounds: at most 200 operations each (PREA_MULTE_PRESTATII), and the batch, its preview, its export and its screen stay small', async () => {
    const rows = 40;
    const file = workbook([0, 4, 5, 6, 7, 8], rows, dataRow);
    const res = await upload(t, key, file, 'limite.xlsx');
    expect(res.status).toBe(201);
    const id = (await json(res)).batch_id as number;
    await settled(t, key, id);

    // The header is stored whole (within its bound): the batch answers it once.
    expect(await size(await t.call('GET', `/v1/import/${id}`, { key }))).toBeLessThan(40_000);
    const page = await t.call('GET', `/v1/import/${id}/preview?page_size=5`, { key });
    const preview = (await json(page.clone())) as {
      rows: Array<{ state: string; erori: Array<{ cod: string }>; values: { prestatii: Array<{ denumire: string }> } }>;
      operations_to_map: unknown[];
    };
    expect(await size(page)).toBeLessThan(5 * 12_000);
    const row = preview.rows[0]!;
    expect(row.state).toBe('needs_data');
    expect(row.erori.map((e) => e.cod)).toEqual(expect.arrayContaining(['PREA_MULTE_PRESTATII', 'TEXT_PREA_LUNG']));
    expect(row.values.prestatii).toHaveLength(200);
    expect(row.values.prestatii[0]!.denumire).toHaveLength(500);
    expect(preview.operations_to_map.length).toBeLessThanOrEqual(500);

    const all = await t.call('GET', `/v1/import/${id}/preview?page_size=1000`, { key });
    expect(await size(all)).toBeLessThan(rows * 12_000);
    expect(await size(await t.call('GET', `/v1/import/${id}/export-failed`, { key }))).toBeLessThan(40_000 + rows * 2_000);

    const user = await makeUser(t, accountId);
    const b = browser(t);
    await b.login(user.email);
    const screen = await b.get(`/import/${id}`);
    expect(screen.status).toBe(200);
    const html = await screen.text();
    // A label or a cell is shown cut, with an ellipsis; the whole stays stored (the API above).
    expect(html).not.toContain('h'.repeat(1_000));
    expect(html).toContain('…');
    expect(html.length).toBeLessThan(400_000);
  }, 120_000);
});

describe('a batch of heavy rows', () => {
  // No burst: once an account's costly work has taken any time, its next costly request waits.
  let t2: TestApp;
  // An upload is costly work too: the files go through a second server, which has no cost
  // budget (the helpers' default), so that the reads here start with nothing owed.
  let uploader: ReturnType<typeof secondServer>;
  beforeAll(async () => {
    t2 = await startTestApp({ ...FAST_SCRYPT, GATEWAY_IMPORT_FIRST_ROWS: '100000', GATEWAY_COSTLY_BURST_MS: '0', GATEWAY_COSTLY_SHARE_PCT: '0.01' });
    uploader = secondServer(t2, { GATEWAY_IMPORT_FIRST_ROWS: '100000' });
  });
  afterAll(async () => {
    await uploader.close();
    await t2.close();
  });

  async function staged(key: string, file: Buffer, name: string) {
    const res = await upload({ ...t2, app: uploader.app }, key, file, name);
    expect(res.status).toBe(201);
    const id = (await json(res)).batch_id as number;
    await settled(t2, key, id);
    return id;
  }

  it('every read of its rows, a page of any size and its screen, is costly work of its account; an ordinary batch’s small pages are not', async () => {
    const account = await t2.createAccount('Rânduri grele');
    const key = await t2.createKey(account);
    // 40 rows of ~65 K characters each: blocks close at their size, long before 256 rows.
    const heavy = await staged(key, workbook([0, 4, 5, 6, 7, 8], 40, dataRow), 'grele.xlsx');
    const csv = ['VIN;Nr;Data;Km;Cod operație', ...Array.from({ length: 300 }, (_, i) => `WDB1234561A${100_000 + i};B${i}X;2025-03-14;${1000 + i};OE-3`)].join('\r\n');
    const ordinary = await staged(key, Buffer.from(csv), 'obisnuit.csv');

    const first = await t2.call('GET', `/v1/import/${heavy}/preview?page_size=5`, { key });
    expect(first.status).toBe(200);
    // Its time is owed now: the next small page of the heavy batch waits; the ordinary batch's does not.
    const second = await t2.call('GET', `/v1/import/${heavy}/preview?page_size=5`, { key });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await json(second)).cod).toBe('CONT_PREA_MULTE_OPERATII');
    expect((await t2.call('GET', `/v1/import/${ordinary}/preview?page_size=5`, { key })).status).toBe(200);
    // The batch itself (its header and counts) is a simple read.
    expect((await t2.call('GET', `/v1/import/${heavy}`, { key })).status).toBe(200);

    const user = await makeUser(t2, account);
    const b = browser(t2);
    await b.login(user.email);
    const screen = await b.get(`/_import/${heavy}`, { 'HX-Request': 'true' });
    expect(screen.status).toBe(429);
    expect(await screen.text()).toContain('limita de operații costisitoare');
    expect((await b.get(`/import/${ordinary}`)).status).toBe(200);
    // The page opened by its address is refused inside the dashboard, with the way back to it.
    const page = await b.get(`/import/${heavy}`);
    expect(page.status).toBe(429);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const html = await page.text();
    expect(html).toContain('<nav');
    expect(html).toContain('limita de operații costisitoare');
    expect(html).toContain(`href="/import/${heavy}"`);

    // Another account's heavy batch is a 404 to this one, as any batch of another account, never a 429.
    const other = await t2.createKey(await t2.createAccount('Alt atelier'));
    expect((await t2.call('GET', `/v1/import/${heavy}/preview?page_size=5`, { key: other })).status).toBe(404);
  }, 120_000);
});
