import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyBulk, BULK_CAP, previewBulk } from '../../src/services/submissions/bulk';
import { COUNT_CAP, dashboardCounts, listDashboard } from '../../src/services/submissions/dashboard';
import { waitingForCredentials } from '../../src/services/submissions/read';
import { startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

// The Trimiteri list of issue 18 against real PostgreSQL: the "De rezolvat" rule with
// credential waits, errors by cause, substring search and its escaping, pages both ways with
// their total, bulk actions (counted confirmation, changed in between, other accounts), the
// permalink and the panel's own poll.
let t: TestApp;
let key: string;
let otherKey: string;
let account: number;
let b: ReturnType<typeof browser>;
let email: string;
let userId: number;

async function submit(k: string, overrides: Parameters<typeof makeSubmission>[0] = {}): Promise<number> {
  const res = await t.call('POST', '/v1/prezentari', { key: k, body: makeSubmission(overrides) });
  return Number(((await res.json()) as { submission_id: number }).submission_id);
}
const regError = (cod: string) => JSON.stringify({ cod, problema: 'p', fix: 'f', cauza: 'c' });
async function setState(id: number, status: string, cod?: string) {
  await t.ctx.sql`UPDATE submissions SET status = ${status}, reg_error = ${cod ? regError(cod) : null}::jsonb WHERE id = ${id}`;
}
const ids = (html: string) => [...html.matchAll(/id="t-(\d+)"/g)].map((m) => Number(m[1]));
const statusOf = async (id: number) => (await t.ctx.sql<{ status: string }[]>`SELECT status FROM submissions WHERE id = ${id}`)[0]?.status;

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  account = await t.createAccount();
  key = await t.createKey(account);
  otherKey = await t.createKey(await t.createAccount('Alt service'));
  ({ id: userId, email } = await makeUser(t, account));
  b = browser(t);
  await b.login(email);
  await b.get('/');
});
afterAll(() => t.close());

describe('"De rezolvat" counts the credential waits', () => {
  it('a queued row waiting for credentials is in the count and the list; a plain queued one is not', async () => {
    const waiting = await submit(key, { nrInm: 'CW1AAA' });
    const plain = await submit(key, { nrInm: 'CW2AAA' });
    await setState(waiting, 'queued', 'REG_CREDENTIALE_LIPSA');
    await setState(plain, 'queued', 'REG_RETEA');
    expect(await waitingForCredentials({ ctx: t.ctx, actor: { kind: 'dev', accountId: account } })).toBe(1);
    const counts = await dashboardCounts({ ctx: t.ctx, actor: { kind: 'dev', accountId: account } });
    expect(counts.toResolve).toEqual({ n: 1, capped: false });
    const html = await (await b.get('/_fragments/coada')).text();
    expect(ids(html)).toEqual([waiting]);
    expect(html).toMatch(/De rezolvat <span class="n">1<\/span>/);
    expect(html).toContain('× fără credențiale');
    await t.ctx.sql`DELETE FROM submissions WHERE id IN (${waiting}, ${plain})`;
  });
});

describe('errors grouped by cause', () => {
  it('chips count each reg_error.cod in Romanian; cauza= filters; an unknown cause is a 422', async () => {
    const a = [await submit(key), await submit(key), await submit(key)];
    await setState(a[0]!, 'error', 'REG_LOGIN_RESPINS');
    await setState(a[1]!, 'error', 'REG_LOGIN_RESPINS');
    await setState(a[2]!, 'error', 'REG_CONTINUT_RESPINS');
    const html = await (await b.get('/_fragments/coada?vedere=error')).text();
    expect(html).toMatch(/<span class="n">2<\/span> × autentificare refuzată/);
    expect(html).toMatch(/<span class="n">1<\/span> × conținut respins/);
    const filtered = await (await b.get('/_fragments/coada?vedere=error&cauza=REG_LOGIN_RESPINS')).text();
    expect(ids(filtered).sort()).toEqual([a[0], a[1]].sort());
    expect((await b.get('/_fragments/coada?vedere=error&cauza=REG_NIMIC')).status).toBe(422);
    await t.ctx.sql`DELETE FROM submissions WHERE id IN ${t.ctx.sql(a)}`;
  });
});

describe('search by any part', () => {
  it('finds a part of a plate or a VIN in any case, dashes and spaces ignored; 1–2 characters match the start', async () => {
    const plate = await submit(key, { nrInm: 'SV77QQQ' });
    const vin = await submit(key, { vin: 'WDB9990001A123456', nrInm: 'ZZ1ZZZ' });
    const find = async (term: string) => ids(await (await b.get(`/_fragments/coada?vedere=toate&cauta=${encodeURIComponent(term)}`)).text());
    expect(await find('77q')).toEqual([plate]);
    expect(await find('v-77 q')).toEqual([plate]);
    expect(await find('99900')).toEqual([vin]);
    expect(await find('SV')).toEqual([plate]);
    expect(await find('7Q')).toEqual([]);
    await t.ctx.sql`DELETE FROM submissions WHERE id IN (${plate}, ${vin})`;
  });

  it('%, _ and \\ in the term are literal characters, never wildcards', async () => {
    const rows = [await submit(key), await submit(key), await submit(key), await submit(key)];
    const plates = ['AB%CD', 'ABXCD', 'A_1B', 'A\\2B'];
    // Only a held row can carry such a plate (a queued or sent one passed validation): the search looks among those.
    for (const [i, id] of rows.entries()) await t.ctx.sql`UPDATE submissions SET nr_inm = ${plates[i]!}, status = 'needs_data' WHERE id = ${id}`;
    const find = async (term: string) => ids(await (await b.get(`/_fragments/coada?vedere=toate&cauta=${encodeURIComponent(term)}`)).text());
    expect(await find('B%C')).toEqual([rows[0]]);
    expect(await find('%')).toEqual([]);
    expect(await find('A_1')).toEqual([rows[2]]);
    expect(await find('_1B')).toEqual([rows[2]]);
    expect(await find('A\\2')).toEqual([rows[3]]);
    await t.ctx.sql`DELETE FROM submissions WHERE id IN ${t.ctx.sql(rows)}`;
  });
});

describe('pages both ways', () => {
  it('Pagina N din M with the total; back from page 2 is page 1 again, in both reading orders', async () => {
    const made: number[] = [];
    for (let i = 0; i < 57; i++) made.push(await submit(key, { nrInm: `PG${String(i).padStart(3, '0')}X` }));
    const first = await (await b.get('/_fragments/coada?vedere=toate')).text();
    expect(first).toContain('Pagina 1 din 2 · 57 de trimiteri');
    expect(first).not.toContain('Pagina anterioară');
    const next = /dupa=(\d+)"/.exec(first)![1];
    const second = await (await b.get(`/_fragments/coada?vedere=toate&dupa=${next}`)).text();
    expect(second).toContain('Pagina 2 din 2 · 57 de trimiteri');
    expect(ids(second)).toHaveLength(7);
    const prev = /inainte=(\d+)"/.exec(second)![1];
    const back = await (await b.get(`/_fragments/coada?vedere=toate&inainte=${prev}`)).text();
    expect(ids(back)).toEqual(ids(first));
    expect(back).toContain('Pagina 1 din 2');

    // Oldest first ("De rezolvat"), through the service with small pages.
    for (const id of made.slice(0, 12)) await setState(id, 'error', 'REG_RETEA');
    const page = (p: { after?: number; before?: number }) =>
      listDashboard({ ctx: t.ctx, actor: { kind: 'dev', accountId: account }, filters: { view: 'de_rezolvat' }, page: { limit: 5, oldestFirst: true, ...p } });
    const p1 = await page({});
    const p2 = await page({ after: p1.items.at(-1)!.id });
    const p3 = await page({ after: p2.items.at(-1)!.id });
    expect([p1.position, p2.position, p3.position, p3.items.length, p1.total]).toEqual([0, 5, 10, 2, 12]);
    expect(p2.items.map((s) => s.id)).toEqual(made.slice(5, 10));
    const back2 = await page({ before: p3.items[0]!.id });
    expect(back2.items.map((s) => s.id)).toEqual(made.slice(5, 10));
    expect(back2.position).toBe(5);
    await t.ctx.sql`DELETE FROM submissions WHERE id IN ${t.ctx.sql(made)}`;
  });
});

describe('bulk actions', () => {
  it('counts what the filter matches now and what each state allows; does exactly that, journaled with who', async () => {
    const errors = [await submit(key), await submit(key), await submit(key)];
    const sent = [await submit(key), await submit(key)];
    for (const id of errors) await setState(id, 'error', 'REG_LOGIN_RESPINS');
    for (const id of sent) await setState(id, 'sent');
    const foreign = await submit(otherKey);
    await setState(foreign, 'error', 'REG_LOGIN_RESPINS');

    const confirm = await b.post('/trimiteri/actiuni', { actiune: 'repune', tot: '1', vedere: 'toate' });
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(html).toContain('Repuneți 3 trimiteri în coadă?');
    expect(html).toMatch(/2 trimiteri: Înregistrarea este deja în registru/);
    const amprenta = /name="amprenta" value="([^"]+)"/.exec(html)![1]!;
    const done = await b.post('/trimiteri/actiuni/executa', { actiune: 'repune', tot: '1', vedere: 'toate', amprenta });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('Au fost repuse în coadă 3 trimiteri.');
    for (const id of errors) expect(await statusOf(id)).toBe('queued');
    for (const id of sent) expect(await statusOf(id)).toBe('sent');
    expect(await statusOf(foreign)).toBe('error');
    await t.ctx.journal.flush();
    const journal = await t.ctx.sql<{ data: { actor: string } }[]>`SELECT data FROM app_events WHERE event = 'submission_requeued' AND submission_id IN ${t.ctx.sql(errors)}`;
    expect(journal.map((r) => r.data.actor)).toEqual(Array(3).fill(`utilizator:${userId}`));
    await t.ctx.sql`DELETE FROM submissions WHERE id IN ${t.ctx.sql([...errors, ...sent])}`;
  });

  it('a held row is classified again: requeued when it now passes, left alone (and said so) when it would still be held', async () => {
    const passes = await submit(key);
    await setState(passes, 'needs_data');
    const held = await submit(key, { prestatii: [{ cod_op_service: 'NEMAPAT-1', denumire: 'Ceva' }], on_unmapped_error: false });
    expect(await statusOf(held)).toBe('needs_mapping');
    const html = await (await b.post('/trimiteri/actiuni', { actiune: 'repune', tot: '1', vedere: 'de_rezolvat' })).text();
    expect(html).toContain('Repuneți o trimitere în coadă?');
    expect(html).toContain('o trimitere: Încă nu poate fi repusă: așteaptă date sau mapări.');
    const amprenta = /name="amprenta" value="([^"]+)"/.exec(html)![1]!;
    const done = await b.post('/trimiteri/actiuni/executa', { actiune: 'repune', tot: '1', vedere: 'de_rezolvat', amprenta });
    expect(done.status).toBe(200);
    expect(await statusOf(passes)).toBe('queued');
    expect(await statusOf(held)).toBe('needs_mapping');
    await t.ctx.sql`DELETE FROM submissions WHERE id IN (${passes}, ${held})`;
  });

  it('refuses, writing nothing, when the rows changed between the confirmation and the action', async () => {
    const rows = [await submit(key), await submit(key)];
    for (const id of rows) await setState(id, 'error', 'REG_EROARE_SERVER');
    const html = await (await b.post('/trimiteri/actiuni', { actiune: 'sterge', id: String(rows[0]) })).text();
    expect(html).toContain('Ștergeți definitiv o trimitere?');
    const amprenta = /name="amprenta" value="([^"]+)"/.exec(html)![1]!;
    // The worker (or another clerk) moved it in between.
    await setState(rows[0]!, 'sending');
    const refused = await b.post('/trimiteri/actiuni/executa', { actiune: 'sterge', id: String(rows[0]), amprenta });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('Nu s-a modificat nimic');
    expect(await statusOf(rows[0]!)).toBe('sending');

    // The filter gained a row: the count check refuses too.
    const plan = await previewBulk({ ctx: t.ctx, actor: { kind: 'dev', accountId: account }, action: 'delete', target: { filters: { view: 'error' } } });
    expect(plan.ids).toEqual([rows[1]]);
    const extra = await submit(key);
    await setState(extra, 'error', 'REG_EROARE_SERVER');
    await expect(
      applyBulk({
        ctx: t.ctx,
        action: 'delete',
        target: { filters: { view: 'error' } },
        confirmed: plan.fingerprint,
        actor: { kind: 'user', accountId: account, userId, admin: false },
        requestId: 'r',
      }),
    ).rejects.toThrow(/acum ar fi 2/);
    expect(await statusOf(rows[1]!)).toBe('error');
    await t.ctx.sql`DELETE FROM submissions WHERE id IN ${t.ctx.sql([...rows, extra].map(String))}`;
  });

  it('another account’s ids are never counted nor touched, even with a forged fingerprint', async () => {
    const foreign = await submit(otherKey);
    await setState(foreign, 'error', 'REG_RETEA');
    const html = await (await b.post('/trimiteri/actiuni', { actiune: 'sterge', id: String(foreign) })).text();
    expect(html).toContain('Nicio trimitere aleasă nu permite această acțiune.');
    expect(html).toContain('Nu mai există');
    const { fingerprint } = await import('../../src/services/submissions/bulk');
    const forged = await b.post('/trimiteri/actiuni/executa', { actiune: 'sterge', id: String(foreign), amprenta: fingerprint('delete', [foreign]) });
    expect(forged.status).toBe(409);
    expect(await statusOf(foreign)).toBe('error');
  });

  it('bad input is a Romanian 422 notice and nothing is written', async () => {
    const id = await submit(key);
    await setState(id, 'error', 'REG_RETEA');
    const cases: Array<[string, Record<string, string>]> = [
      ['/trimiteri/actiuni', { actiune: 'arde', id: String(id) }],
      ['/trimiteri/actiuni', { actiune: 'sterge', id: 'abc' }],
      ['/trimiteri/actiuni', { actiune: 'sterge', id: '-1' }],
      ['/trimiteri/actiuni', { actiune: 'sterge', id: '9'.repeat(40) }],
      ['/trimiteri/actiuni', { actiune: 'sterge' }],
      ['/trimiteri/actiuni', { actiune: 'sterge', tot: '1', vedere: 'toate', cauta: "'; DROP TABLE submissions; --".repeat(3) }],
      ['/trimiteri/actiuni', { actiune: 'sterge', tot: '1', vedere: 'nimic' }],
      ['/trimiteri/actiuni/executa', { actiune: 'sterge', id: String(id) }],
      ['/trimiteri/actiuni/executa', { actiune: 'sterge', id: String(id), amprenta: '<script>' }],
    ];
    for (const [path, form] of cases) {
      const res = await b.post(path, form);
      expect(res.status, JSON.stringify(form)).toBe(422);
      expect(await res.text()).toMatch(/Cererea nu este validă/);
    }
    const many = new URLSearchParams({ actiune: 'sterge', _csrf: b.csrf() ?? '' });
    for (let i = 1; i <= 201; i++) many.append('id', String(i));
    const res = await t.app.request('http://localhost/trimiteri/actiuni', {
      method: 'POST',
      headers: {
        Host: 'localhost',
        Origin: 'http://localhost',
        Cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: many.toString(),
    });
    expect(res.status).toBe(422);
    expect(await statusOf(id)).toBe('error');
  });

  it(`offers nothing over ${BULK_CAP} rows and says so; a filter's count stops at ${COUNT_CAP} and says "peste"`, async () => {
    const seed = await submit(key);
    await t.ctx.sql`
      INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key)
      SELECT account_id, 'error', payload_json, vin, 'CAP' || i, data_prestatie, 'cap-' || i FROM submissions, generate_series(1, ${COUNT_CAP + 1}) AS i WHERE id = ${seed}`;
    const html = await (await b.post('/trimiteri/actiuni', { actiune: 'sterge', tot: '1', vedere: 'error' })).text();
    expect(html).toContain('peste 5.000 de trimiteri');
    expect(html).not.toContain('amprenta');
    const list = await (await b.get('/_fragments/coada?vedere=error&cauta=cap')).text();
    expect(list).toContain('Pagina 1 · peste 10.000 de trimiteri');
    expect(list).toContain('Pagina următoare');
    // The counter of the state stops at the cap too, and says so.
    expect(list).toMatch(/Eroare <span class="n">10\.000\+<\/span>/);
    expect(list).toMatch(/Toate <span class="n">10\.\d{3}\+<\/span>/);
    await t.ctx.sql`DELETE FROM submissions WHERE idempotency_key LIKE 'cap-%' OR id = ${seed}`;
  });
});

describe('permalink and the panel that follows its submission', () => {
  it('/trimiteri/{id} is the page with the panel open; another account’s id is the same 404 as a missing one', async () => {
    const id = await submit(key, { nrInm: 'PL1AAA' });
    const page = await b.get(`/trimiteri/${id}?vedere=toate`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`Trimiterea #${id}`);
    expect(html).toContain('id="coada"');
    expect(html).toContain('Sari la listă');
    const foreign = await b.get(`/trimiteri/${await submit(otherKey)}`);
    const missing = await b.get('/trimiteri/99999999');
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toBe(await missing.text());
    expect((await b.get('/trimiteri/abc')).status).toBe(404);
  });

  it('signed out, /trimiteri/{id} leads to the sign-in and a bulk action is refused', async () => {
    const stranger = browser(t);
    const page = await stranger.get('/trimiteri/1');
    expect([302, 303]).toContain(page.status);
    expect(page.headers.get('location')).toBe('/login');
    const action = await stranger.post('/trimiteri/actiuni', { actiune: 'sterge', tot: '1', vedere: 'toate' });
    expect(action.status).toBeGreaterThanOrEqual(300);
    expect(action.status).not.toBe(200);
  });

  it('the panel poll is 304 while the state is the same, and the new panel once the worker moved it', async () => {
    const id = await submit(key);
    const html = await (await b.get(`/_fragments/trimitere/${id}`)).text();
    const version = /data-version="([^"]+)"/.exec(html)![1];
    const poll = () => b.get(`/_fragments/trimitere/${id}`, { 'X-Poll': '1', 'HX-Request': 'true', 'If-None-Match': `"${version}"` });
    expect((await poll()).status).toBe(304);
    await t.ctx.sql`UPDATE submissions SET status = 'sent', sent_at = now(), updated_at = now() WHERE id = ${id}`;
    const moved = await poll();
    expect(moved.status).toBe(200);
    expect(await moved.text()).toContain('Trimisă');
  });
});
