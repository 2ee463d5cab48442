import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

// Issue 18: an error whose cause is its content is corrected in the panel like needs_data; the
// form speaks the clerk's words, takes dd.mm.yyyy and keeps what was typed when refused; the
// attempts table and the journal are in Romanian with who acted; an unknown page is a page.

let t: TestApp;
let key: string;
let otherKey: string;
let user: { id: number; email: string };
let b: ReturnType<typeof browser>;

async function submit(k: string, overrides: Parameters<typeof makeSubmission>[0] = {}): Promise<number> {
  const res = await t.call('POST', '/v1/prezentari', { key: k, body: makeSubmission(overrides) });
  return Number(((await res.json()) as { submission_id: number }).submission_id);
}
/** What the worker leaves when the registry refuses the content of a send (worker/failures.ts). */
async function refusedByRegistry(id: number, cod = 'REG_CONTINUT_RESPINS', outcome = 'rejected') {
  const regError = { cod, problema: 'Registrul a refuzat conținutul înregistrării.', cauza: 'CONTINUT_INVALID: dataPrestatie în afara perioadei', fix: 'Corectați.' };
  await t.ctx.sql`UPDATE submissions SET status = 'error', attempts = 1, reg_error = ${JSON.stringify(regError)}::jsonb WHERE id = ${id}`;
  await t.ctx.sql`INSERT INTO submission_attempts (submission_id, attempt_no, ended_at, http_status, outcome, error_code, result_status)
    VALUES (${id}, 1, now(), 400, ${outcome}, ${cod}, 'error')`;
}
const visibleText = (html: string) => html.replace(/<[^>]*>/g, ' ');

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const account = await t.createAccount();
  key = await t.createKey(account);
  otherKey = await t.createKey(await t.createAccount('Alt service'));
  user = await makeUser(t, account, { email: 'ion@service.ro' });
  b = browser(t);
  await b.login(user.email);
  await b.get('/');
});
afterAll(() => t.close());

describe('correcting what the registry refused', () => {
  it('a content error offers the form, with the clerk’s field names, dd.mm.yyyy, and the attempts in words', async () => {
    const id = await submit(key, { nrInm: 'CJ10REF' });
    await refusedByRegistry(id);
    const panel = await (await b.get(`/_fragments/trimitere/${id}`)).text();
    expect(panel).toContain(`hx-post="/trimitere/${id}/corecteaza"`);
    expect(panel).toMatch(/<fieldset>\s*<legend>Vehiculul<\/legend>/);
    for (const label of ['Seria de șasiu (VIN)', 'Nr. de înmatriculare', 'Data prestației', 'Odometru final (km)']) expect(panel).toContain(`>${label}</label>`);
    expect(panel).toContain('value="14.03.2025"');
    expect(panel).toContain('conținut respins');
    expect(panel).toContain('refuzată de registru → Eroare');
    // The registry's own words name the field as the clerk knows it.
    expect(visibleText(panel)).not.toMatch(/\bdataPrestatie\b/);
    expect(visibleText(panel)).not.toContain('REG_CONTINUT_RESPINS');
  });

  it('an error of another cause has no form, and a correction posted anyway is refused (409)', async () => {
    const id = await submit(key, { nrInm: 'CJ11LOG' });
    await refusedByRegistry(id, 'REG_LOGIN_RESPINS', 'login_rejected');
    const panel = await (await b.get(`/_fragments/trimitere/${id}`)).text();
    expect(panel).not.toContain('/corecteaza');
    expect(panel).toContain('autentificare refuzată');
    const form = { vin: 'WDB1234561A654321', nrInm: 'CJ11LOG', dataPrestatie: '14.03.2025', odometruInitial: '', odometruFinal: '1000' };
    expect((await b.post(`/trimitere/${id}/corecteaza`, form)).status).toBe(409);
  });

  it('a refused form comes back as typed, the error at its field, in Romanian; hostile and oversized input is escaped or refused', async () => {
    const id = await submit(key, { nrInm: 'CJ12TYP' });
    await refusedByRegistry(id);
    const typed = { vin: 'WDB1234561A999999', nrInm: 'CJ12NOU', odometruInitial: '', odometruFinal: '123456' };
    for (const date of ['31.02.2025', '2025-13-01', '14/03/2025x']) {
      const res = await b.post(`/trimitere/${id}/corecteaza`, { ...typed, dataPrestatie: date });
      expect(res.status, date).toBe(422);
      const html = await res.text();
      expect(html, date).toContain(`value="${date}"`);
      expect(html).toContain('value="WDB1234561A999999"');
      expect(html).toContain('value="CJ12NOU"');
      expect(html).toMatch(/id="corectie-dataPrestatie-eroare">Data nu există sau nu este scrisă ca zz\.ll\.aaaa/);
      expect(html).toContain('aria-invalid="true"');
    }
    const blank = await (await b.post(`/trimitere/${id}/corecteaza`, { ...typed, vin: '', dataPrestatie: '14.03.2025' })).text();
    expect(blank).toContain('Completați „Seria de șasiu (VIN)”.');
    const hostile = await (await b.post(`/trimitere/${id}/corecteaza`, { ...typed, nrInm: '"><script>alert(1)</script>', dataPrestatie: '' })).text();
    expect(hostile).not.toContain('<script>alert(1)');
    expect(hostile).toContain('&lt;script&gt;');
    const long = await b.post(`/trimitere/${id}/corecteaza`, { ...typed, vin: 'V'.repeat(5000), dataPrestatie: '14.03.2025' });
    expect(long.status).toBe(422);
    expect(await long.text()).toContain('„Seria de șasiu (VIN)” este prea lung.');
    const [row] = await t.ctx.sql`SELECT status, nr_inm FROM submissions WHERE id = ${id}`;
    expect(row).toMatchObject({ status: 'error', nr_inm: 'CJ12TYP' });
    // Another account's submission: the same 404 as a missing one.
    const foreign = await submit(otherKey);
    await refusedByRegistry(foreign);
    expect((await b.post(`/trimitere/${foreign}/corecteaza`, { ...typed, dataPrestatie: '14.03.2025' })).status).toBe(404);
  });

  it('a valid correction in dd.mm.yyyy is queued afresh, journaled with the user, and the journal says so in words', async () => {
    const id = await submit(key, { nrInm: 'CJ13OK' });
    await refusedByRegistry(id);
    const res = await b.post(`/trimitere/${id}/corecteaza`, { vin: 'WDB1234561A777777', nrInm: 'cj13ok', dataPrestatie: '2.3.2025', odometruInitial: '', odometruFinal: '150000' });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('a intrat în coadă');
    const [row] = await t.ctx.sql`SELECT status, data_prestatie, reg_error, attempts FROM submissions WHERE id = ${id}`;
    expect(row).toMatchObject({ status: 'queued', data_prestatie: '2025-03-02', reg_error: null, attempts: 0 });
    await t.ctx.journal.flush();
    const journal = await (await b.get('/jurnal?eveniment=submission_corrected')).text();
    expect(journal).toContain('trimitere corectată');
    expect(journal).toContain('de ion@service.ro');
    expect(journal).toContain('informare');
    expect(journal).not.toContain(`utilizator:${user.id}`);
  });

  it('a needs_data submission shows its content errors at their fields with the clerk’s names', async () => {
    const id = await submit(key, { nrInm: 'CJ14ND', vin: 'SCURT' });
    const panel = await (await b.get(`/_fragments/trimitere/${id}`)).text();
    expect(panel).toMatch(/id="corectie-vin-eroare">VIN-ul nu este valid/);
    expect(panel).toContain('<strong>Seria de șasiu (VIN):</strong>');
  });

  it('an odometer held for its fraction is shown with its decimal comma, and saved unchanged is refused again, never scaled (issue 31)', async () => {
    const id = await submit(key, { nrInm: 'CJ15KM', odometruFinal: 87.456 });
    const [row] = await t.ctx.sql<{ status: string }[]>`SELECT status FROM submissions WHERE id = ${id}`;
    expect(row!.status).toBe('needs_data');
    const panel = await (await b.get(`/_fragments/trimitere/${id}`)).text();
    expect(panel).toContain('87,4560 km');
    const shown = /<input[^>]*name="odometruFinal"[^>]*value="([^"]*)"/.exec(panel)?.[1];
    expect(shown).toBe('87,4560');
    expect(visibleText(panel)).not.toContain('87.456');
    // The clerk fixes another field and saves the form as it was filled: the odometer is refused, as shown.
    const form = { vin: 'WDB1234561A654321', nrInm: 'CJ15KN', dataPrestatie: '14.03.2025', odometruInitial: '', odometruFinal: shown! };
    const refused = await (await b.post(`/trimitere/${id}/corecteaza`, form)).text();
    expect(refused).toContain('Odometrul nu este un număr întreg de kilometri.');
    const [after] = await t.ctx.sql<{ status: string; km: string }[]>`SELECT status, payload_json->>'odometruFinal' AS km FROM submissions WHERE id = ${id}`;
    expect(after).toEqual({ status: 'needs_data', km: '87.456' });
  });

  it('an API action names its key in the journal', async () => {
    const id = await submit(key, { nrInm: 'CJ15API' });
    await refusedByRegistry(id);
    await t.call('POST', `/v1/prezentari/${id}/repune`, { key });
    await t.ctx.journal.flush();
    const journal = await (await b.get('/jurnal?eveniment=api_prezentari')).text();
    expect(journal).toMatch(/prin API \(cheia gw_[A-Za-z0-9_-]+…\)/);
  });
});

describe('pages the dashboard does not have, and the skip link', () => {
  it('signed in: a 404 page in the layout, with the tabs; signed out: the bare page, or /login under a signed-in prefix', async () => {
    for (const path of ['/nu-exista', '/cont/nu-exista', '/trimitere/nimic']) {
      const res = await b.get(path);
      expect(res.status, path).toBe(404);
      const html = await res.text();
      expect(html).toContain('Pagina nu există');
      expect(html).toContain('aria-label="Secțiuni"');
    }
    const stranger = browser(t);
    const bare = await stranger.get('/nu-exista');
    expect(bare.status).toBe(404);
    const html = await bare.text();
    expect(html).toContain('Pagina nu există');
    expect(html).not.toContain('aria-label="Secțiuni"');
    expect((await stranger.get('/cont/nu-exista')).headers.get('location')).toBe('/login');
  });

  it('every page starts with the skip link to its content', async () => {
    const html = await (await b.get('/jurnal')).text();
    const body = html.slice(html.indexOf('<body'));
    expect(body.indexOf('<a class="skip" href="#continut">Sari la conținut</a>')).toBeLessThan(body.indexOf('<header'));
    expect(body).toContain('<main id="continut" tabindex="-1">');
  });
});
