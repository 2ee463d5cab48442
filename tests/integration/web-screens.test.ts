import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

let t: TestApp;
let key: string;
let otherKey: string;
let b: ReturnType<typeof browser>;

async function submit(k: string, overrides: Parameters<typeof makeSubmission>[0] = {}): Promise<number> {
  const res = await t.call('POST', '/v1/prezentari', { key: k, body: makeSubmission(overrides) });
  return Number(((await res.json()) as { submission_id: number }).submission_id);
}
const unmapped = (code: string) => ({ prestatii: [{ cod_op_service: code, denumire: 'Schimb ulei motor' }], on_unmapped_error: false });

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const account = await t.createAccount();
  const other = await t.createAccount('Alt service');
  key = await t.createKey(account);
  otherKey = await t.createKey(other);
  const user = await makeUser(t, account);
  b = browser(t);
  await b.login(user.email);
  await b.get('/');
});
afterAll(() => t.close());

describe('submissions fragment', () => {
  it('shows only the account’s submissions; "De rezolvat" oldest first; filters and search; keyset pages', async () => {
    const held = [await submit(key, unmapped('X-1')), await submit(key, { vin: 'SHORTVIN' })];
    for (let i = 0; i < 55; i++) await submit(key, { nrInm: `B${String(i).padStart(3, '0')}XYZ` });
    const foreign = await submit(otherKey, { nrInm: 'TM01STR' });

    const toResolve = await (await b.get('/_fragments/coada')).text();
    expect([...toResolve.matchAll(/id="t-(\d+)"/g)].map((m) => Number(m[1]))).toEqual(held);
    expect(toResolve).not.toContain(`t-${foreign}`);

    const all = await (await b.get('/_fragments/coada?vedere=toate')).text();
    const firstPage = [...all.matchAll(/id="t-(\d+)"/g)].map((m) => Number(m[1]));
    expect(firstPage).toHaveLength(50);
    expect(firstPage[0]).toBeGreaterThan(firstPage[1]!);
    const next = /hx-get="\/_fragments\/coada\?vedere=toate&amp;dupa=(\d+)"/.exec(all)?.[1];
    expect(Number(next)).toBe(firstPage.at(-1));
    const second = await (await b.get(`/_fragments/coada?vedere=toate&dupa=${next}`)).text();
    const secondPage = [...second.matchAll(/id="t-(\d+)"/g)].map((m) => Number(m[1]));
    expect(secondPage).toHaveLength(7);
    expect(new Set([...firstPage, ...secondPage]).size).toBe(57);

    const search = await (await b.get('/_fragments/coada?vedere=toate&cauta=b 007-xyz')).text();
    expect([...search.matchAll(/id="t-(\d+)"/g)]).toHaveLength(1);
    const dated = await (await b.get('/_fragments/coada?vedere=toate&de_la=2030-01-01')).text();
    expect(dated).toContain('Nicio trimitere nu corespunde filtrelor');
    // The filters go into the page's URL (not for a poll).
    const nav = await b.get('/_fragments/coada?vedere=sent');
    expect(nav.headers.get('hx-push-url')).toBe('/?vedere=sent');
  });

  it('?tab=import and ?tab=coada lead to the submissions page', async () => {
    for (const tab of ['import', 'coada']) {
      const res = await b.get(`/?tab=${tab}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('id="coada"');
    }
  });

  it('a poll with the ETag it has is 304 until something changes', async () => {
    const first = await b.get('/_fragments/coada', { 'X-Poll': '1', 'HX-Request': 'true' });
    const etag = first.headers.get('etag')!;
    expect(first.headers.get('hx-push-url')).toBeNull();
    const same = await b.get('/_fragments/coada', { 'X-Poll': '1', 'HX-Request': 'true', 'If-None-Match': etag });
    expect(same.status).toBe(304);
    await submit(key, { vin: 'ALSOSHORT' });
    const changed = await b.get('/_fragments/coada', { 'X-Poll': '1', 'HX-Request': 'true', 'If-None-Match': etag });
    expect(changed.status).toBe(200);
  });

  it('bad filters are a 422 notice (app.js shows it above the list it keeps); hostile text is escaped, never run', async () => {
    for (const qs of ['de_la=ieri', 'vedere=toate&dupa=-3', 'vedere=nimic', `cauta=${'x'.repeat(41)}`, 'cauza=DROP', 'inainte=abc', `dupa=${'9'.repeat(30)}`]) {
      const res = await b.get(`/_fragments/coada?${qs}`);
      expect(res.status, qs).toBe(422);
      const text = await res.text();
      expect(text, qs).toContain('Filtrele nu sunt valide');
      expect(text, qs).not.toContain('id="coada"');
    }
    const page = await b.get('/?de_la=ieri');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Filtrele din adresă nu sunt valide');
    const hostile = await (await b.get('/_fragments/coada?cauta=%3Cscript%3Ealert(1)%3C%2Fscript%3E')).text();
    expect(hostile).not.toContain('<script>alert(1)');
  });
});

describe('detail panel and its actions', () => {
  it('another account’s id is the same 404 as a missing one', async () => {
    const foreign = await submit(otherKey);
    const a = await b.get(`/_fragments/trimitere/${foreign}`);
    const missing = await b.get('/_fragments/trimitere/99999999');
    expect(a.status).toBe(404);
    expect(await a.text()).toBe(await missing.text());
    expect((await b.htmx('POST', `/trimitere/${foreign}/sterge`)).status).toBe(404);
    expect((await b.htmx('POST', `/trimitere/${foreign}/repune`)).status).toBe(404);
    expect((await b.post(`/trimitere/${foreign}/mapeaza`, { cod_op_service: 'X', cod_prestatie: 'OE-3' })).status).toBe(404);
    const correction = { vin: 'WDB1234561A654321', nrInm: 'B1X', dataPrestatie: '2025-03-14', odometruInitial: '', odometruFinal: '1' };
    expect((await b.post(`/trimitere/${foreign}/corecteaza`, correction)).status).toBe(404);
    expect((await t.ctx.sql`SELECT count(*)::int AS n FROM submissions WHERE id = ${foreign}`)[0]?.n).toBe(1);
  });

  it('shows the allow-listed fields, never the image; a 409 is a notice in the panel', async () => {
    const id = await submit(key, { vin: 'SHORT', b64Image: Buffer.from('poza-secreta').toString('base64') });
    const html = await (await b.get(`/_fragments/trimitere/${id}`)).text();
    expect(html).toContain('VIN-ul nu este valid');
    expect(html).not.toContain(Buffer.from('poza-secreta').toString('base64'));
    await t.ctx.sql`UPDATE submissions SET status = 'sent', sent_at = now(), registry_id = 'REG-1' WHERE id = ${id}`;
    const refused = await b.htmx('POST', `/trimitere/${id}/sterge`);
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('deja în registru');
  });

  it('deletes a held submission and tells the list to refresh; needs the CSRF token', async () => {
    const id = await submit(key, { vin: 'SHORT2' });
    expect((await b.htmx('POST', `/trimitere/${id}/sterge`, { 'X-CSRF-Token': 'fals' })).status).toBe(403);
    const res = await b.htmx('POST', `/trimitere/${id}/sterge`);
    expect(res.status).toBe(200);
    expect(res.headers.get('hx-trigger')).toBe('coada:schimbata');
    expect(await t.ctx.sql`SELECT 1 FROM submissions WHERE id = ${id}`).toHaveLength(0);
  });

  it('maps a held submission’s code inline: it is queued, and so is every other one waiting for that code', async () => {
    const id = await submit(key, unmapped('UL-99'));
    const twin = await submit(key, { ...unmapped('UL-99'), nrInm: 'CJ77TWN' });
    const panel = await (await b.get(`/_fragments/trimitere/${id}`)).text();
    expect(panel).toContain(`hx-post="/trimitere/${id}/mapeaza"`);
    expect((await b.post(`/trimitere/${id}/mapeaza`, { cod_op_service: 'UL-99', cod_prestatie: 'NU-EXISTA' })).status).toBe(422);
    expect((await b.post(`/trimitere/${id}/mapeaza`, { cod_op_service: 'ALT-COD', cod_prestatie: 'OE-3' })).status).toBe(409);
    expect((await b.post(`/trimitere/${id}/mapeaza`, { cod_op_service: 'UL-99', cod_prestatie: 'OE-3', _csrf: 'fals' })).status).toBe(403);
    const res = await b.post(`/trimitere/${id}/mapeaza`, { cod_op_service: 'UL-99', cod_prestatie: 'OE-3' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('2 trimiteri au fost repuse în coadă');
    const rows = await t.ctx.sql`SELECT status FROM submissions WHERE id IN (${id}, ${twin})`;
    expect(rows.map((r) => r.status)).toEqual(['queued', 'queued']);
  });
});

describe('mapping editor', () => {
  it('lists pending codes with counts and a preselected suggestion, saves one, deletes it', async () => {
    await submit(key, unmapped('SCHIMB-ULEI-9'));
    const html = await (await b.get('/_fragments/mapari')).text();
    expect(html).toContain('SCHIMB-ULEI-9');
    expect(html).toMatch(/<option value="[^"]+" selected="">/);
    expect((await b.post('/mapari', { cod_op_service: 'SCHIMB-ULEI-9', cod_prestatie: '' })).status).toBe(422);
    expect((await b.post('/mapari', { cod_op_service: 'SCHIMB-ULEI-9', cod_prestatie: 'OE-3', _csrf: '' })).status).toBe(403);
    const saved = await b.post('/mapari', { cod_op_service: 'SCHIMB-ULEI-9', cod_prestatie: 'OE-3' });
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain('o trimitere a fost repusă în coadă');
    // The other account sees none of it.
    const mine = await t.ctx.sql`SELECT account_id FROM operation_mappings WHERE cod_op_service = 'SCHIMB-ULEI-9'`;
    expect(mine).toHaveLength(1);
    const deleted = await b.htmx('POST', '/mapari/SCHIMB-ULEI-9/sterge');
    expect(deleted.status).toBe(200);
    expect((await b.htmx('POST', '/mapari/SCHIMB-ULEI-9/sterge')).status).toBe(404);
  });

  it('saves every chosen code at once, after a confirmation step', async () => {
    await submit(key, { prestatii: [{ cod_op_service: 'REV-ANUALA', denumire: 'Revizie periodică' }], on_unmapped_error: false });
    const pairs = { cod_op_service: 'REV-ANUALA', cod_prestatie: 'OE-3' };
    const step = await b.post('/mapari/sugestii', pairs);
    expect(step.status).toBe(200);
    expect(await step.text()).toContain('Confirmați mapările');
    expect(await t.ctx.sql`SELECT 1 FROM operation_mappings WHERE cod_op_service = 'REV-ANUALA'`).toHaveLength(0);
    const res = await b.post('/mapari/sugestii', { ...pairs, numar: '1', confirmat: '1' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('O mapare salvată');
    expect(await t.ctx.sql`SELECT 1 FROM operation_mappings WHERE cod_op_service = 'REV-ANUALA'`).toHaveLength(1);
  });

  it('signed out: the page redirects, a fragment is told to, a post changes nothing', async () => {
    const stranger = browser(t);
    expect((await stranger.get('/mapari')).status).toBe(303);
    expect((await stranger.get('/_fragments/mapari', { 'HX-Request': 'true' })).headers.get('hx-redirect')).toBe('/login');
    expect((await stranger.post('/mapari', { cod_op_service: 'Z-1', cod_prestatie: 'OE-3' })).status).toBe(303);
    expect(await t.ctx.sql`SELECT 1 FROM operation_mappings WHERE cod_op_service = 'Z-1'`).toHaveLength(0);
  });
});

describe('inline correction of a needs_data submission', () => {
  it('re-validates: still invalid stays with the errors; valid is queued; a twin is a 409 notice, not a 500', async () => {
    const good = makeSubmission({ nrInm: 'BV10COR' });
    const id = await submit(key, { ...good, vin: 'WDB1234561A65432' });
    const panel = await (await b.get(`/_fragments/trimitere/${id}`)).text();
    expect(panel).toContain(`hx-post="/trimitere/${id}/corecteaza"`);
    const form = { vin: 'WDB1234561A65432', nrInm: good.nrInm, dataPrestatie: good.dataPrestatie, odometruInitial: '', odometruFinal: String(good.odometruFinal) };

    expect((await b.post(`/trimitere/${id}/corecteaza`, { ...form, vin: '' })).status).toBe(422);
    const still = await b.post(`/trimitere/${id}/corecteaza`, form);
    expect(await still.text()).toContain('mai sunt de corectat');
    expect((await t.ctx.sql`SELECT status FROM submissions WHERE id = ${id}`)[0]?.status).toBe('needs_data');

    // The corrected content is exactly another submission's: refused, naming it.
    const twin = await submit(key, { ...good, nrInm: 'BV10TWN' });
    const clash = await b.post(`/trimitere/${id}/corecteaza`, { ...form, vin: good.vin, nrInm: 'BV10TWN' });
    expect(clash.status).toBe(409);
    expect(await clash.text()).toContain(`#${twin}`);

    const fixed = await b.post(`/trimitere/${id}/corecteaza`, { ...form, vin: good.vin });
    expect(fixed.status).toBe(200);
    expect(await fixed.text()).toContain('a intrat în coadă');
    const [row] = await t.ctx.sql`SELECT status, vin FROM submissions WHERE id = ${id}`;
    expect(row).toMatchObject({ status: 'queued', vin: good.vin });
    // Queued now: no second correction.
    expect((await b.post(`/trimitere/${id}/corecteaza`, { ...form, vin: good.vin })).status).toBe(409);
    expect((await b.post(`/trimitere/${id}/corecteaza`, { ...form, _csrf: 'x' })).status).toBe(403);
  });
});

describe('hostile and malformed form input', () => {
  // (A lone surrogate cannot reach a form body: UTF-8 encoding turns it into U+FFFD.)
  it('a NUL in any form field is a 422 notice, nothing stored, the server fine', async () => {
    const id = await submit(key, { vin: 'SHORTNUL' });
    for (const [path, form] of [
      ['/mapari', { cod_op_service: 'A\u0000B', cod_prestatie: 'OE-3' }],
      [`/trimitere/${id}/corecteaza`, { vin: 'WDB1234561A654321', nrInm: 'B\u0000X', dataPrestatie: '2025-03-14', odometruInitial: '', odometruFinal: '1000' }],
      [`/trimitere/${id}/mapeaza`, { cod_op_service: 'UL\u0000', cod_prestatie: 'OE-3' }],
      ['/cont/creds', { username: 'a\u0000', password: 'b' }],
    ] as const) {
      const res = await b.post(path, form);
      expect(res.status, path).toBe(422);
      expect(await res.text(), path).toContain('caracter nepermis');
    }
    const login = await browser(t).login('x\u0000@y.ro');
    expect(login.status).toBe(422);
    expect((await t.ctx.sql`SELECT status FROM submissions WHERE id = ${id}`)[0]?.status).toBe('needs_data');
    expect((await b.get('/')).status).toBe(200);
  });

  it('an oversized form is a 413 notice; a field of the wrong type (a file) is a 422', async () => {
    const big = await b.post('/mapari', { cod_op_service: 'x'.repeat(70 * 1024), cod_prestatie: 'OE-3' });
    expect(big.status).toBe(413);
    const form = new FormData();
    form.set('_csrf', b.csrf()!);
    form.set('cod_op_service', new File(['x'], 'x.txt'));
    form.set('cod_prestatie', 'OE-3');
    const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await t.app.request('http://localhost/mapari', { method: 'POST', body: form, headers: { Cookie: cookie, Host: 'localhost', Origin: 'http://localhost' } });
    expect(res.status).toBe(422);
  });
});
