import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';
import { ConflictError } from '../../src/errors';
import { saveMapping, saveMappings } from '../../src/services/operations/mappings';

// Issue 18 §1: a code reaches the registry only as the clerk chose it (the web forms of Mapări).
let t: TestApp;
let key: string;
let otherKey: string;
let b: ReturnType<typeof browser>;
let email: string;

async function submit(k: string, code: string, denumire: string): Promise<number> {
  const res = await t.call('POST', '/v1/prezentari', { key: k, body: makeSubmission({ prestatii: [{ cod_op_service: code, denumire }], on_unmapped_error: false }) });
  return Number(((await res.json()) as { submission_id: number }).submission_id);
}
const mapped = async (code: string) =>
  (await t.ctx.sql<{ cod_prestatie: string }[]>`SELECT cod_prestatie FROM operation_mappings WHERE cod_op_service = ${code}`)[0]?.cod_prestatie;
const status = async (id: number) => (await t.ctx.sql<{ status: string }[]>`SELECT status FROM submissions WHERE id = ${id}`)[0]?.status;

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const account = await t.createAccount();
  key = await t.createKey(account);
  otherKey = await t.createKey(await t.createAccount('Alt service'));
  ({ email } = await makeUser(t, account));
  b = browser(t);
  await b.login(email);
  await b.get('/mapari');
});
afterAll(() => t.close());

describe('save-all saves what the page shows', () => {
  it('posts each row as chosen; blank rows are skipped; the confirmation lists pairs with counts; only the second post saves', async () => {
    const a = await submit(key, 'SA-ULEI', 'Schimb ulei motor');
    await submit(key, 'SA-ULEI', 'Schimb ulei motor');
    await submit(key, 'SA-REV', 'Revizie periodică');
    await submit(key, 'SA-BLANK', 'Ceva necunoscut');
    // The clerk changed SA-ULEI's row from the suggestion (OE-2) to OE-1 and left SA-BLANK blank.
    const rows: Array<[string, string]> = [
      ['cod_op_service', 'SA-ULEI'],
      ['cod_prestatie', 'OE-1'],
      ['cod_op_service', 'SA-REV'],
      ['cod_prestatie', 'OE-3'],
      ['cod_op_service', 'SA-BLANK'],
      ['cod_prestatie', ''],
    ];
    const step = await b.postList('/mapari/sugestii', rows);
    expect(step.status).toBe(200);
    const html = await step.text();
    expect(html).toContain('Confirmați mapările');
    expect(html).toMatch(/SA-ULEI<\/span> → <span class="mono">OE-1<\/span> REPARAȚIE · 2 trimiteri blocate/);
    expect(html).toMatch(/SA-REV<\/span> → <span class="mono">OE-3<\/span> REVIZIE PERIODICĂ · o trimitere blocată/);
    expect(html).not.toContain('SA-BLANK');
    expect(await mapped('SA-ULEI')).toBeUndefined();

    const confirmed = await b.postList('/mapari/sugestii', [
      ['confirmat', '1'],
      ['cod_op_service', 'SA-ULEI'],
      ['cod_prestatie', 'OE-1'],
      ['numar', '2'],
      ['cod_op_service', 'SA-REV'],
      ['cod_prestatie', 'OE-3'],
      ['numar', '1'],
    ]);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('2 mapări salvate');
    expect(await mapped('SA-ULEI')).toBe('OE-1');
    expect(await mapped('SA-REV')).toBe('OE-3');
    expect(await mapped('SA-BLANK')).toBeUndefined();
    const [item] = (await t.ctx.sql<{ prestatii: Array<{ cod_prestatie: string }> }[]>`SELECT prestatii FROM submissions WHERE id = ${a}`)[0]!.prestatii;
    expect(item?.cod_prestatie).toBe('OE-1');
    expect(await status(a)).toBe('queued');
  });

  it('refuses a confirmation whose count changed or whose code was mapped meanwhile, and saves nothing', async () => {
    await submit(key, 'ST-1', 'Schimb ulei motor');
    await submit(key, 'ST-2', 'Revizie periodică');
    await submit(key, 'ST-1', 'Schimb ulei motor'); // arrived after the clerk saw "1"
    expect((await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'ST-2', cod_prestatie: 'OE-3' } })).status).toBe(200);
    const res = await b.postList('/mapari/sugestii', [
      ['confirmat', '1'],
      ['cod_op_service', 'ST-1'],
      ['cod_prestatie', 'OE-2'],
      ['numar', '1'],
      ['cod_op_service', 'ST-2'],
      ['cod_prestatie', 'OE-1'],
      ['numar', '1'],
    ]);
    expect(res.status).toBe(409);
    const html = await res.text();
    expect(html).toContain('Nu s-a salvat nimic');
    expect(html).toContain('(erau 1: numărul s-a schimbat)');
    expect(html).toContain('a fost mapat între timp; nu se salvează');
    expect(await mapped('ST-1')).toBeUndefined();
    expect(await mapped('ST-2')).toBe('OE-3');
  });

  it('a code mapped between the check and the save refuses the whole confirmed list (inside the transaction)', async () => {
    await submit(key, 'RACE-1', 'Revizie periodică');
    await submit(key, 'RACE-2', 'Schimb ulei');
    const [account] = await t.ctx.sql<{ account_id: number }[]>`SELECT account_id FROM api_keys LIMIT 1`;
    await saveMapping({ ctx: t.ctx, actor: { kind: 'dev', accountId: account!.account_id }, input: { cod_op_service: 'RACE-2', cod_prestatie: 'OE-2' }, requestId: 'test' });
    const pairs = [
      { cod_op_service: 'RACE-1', cod_prestatie: 'OE-3' },
      { cod_op_service: 'RACE-2', cod_prestatie: 'OE-1' },
    ];
    await expect(saveMappings({ ctx: t.ctx, actor: { kind: 'dev', accountId: account!.account_id }, pairs, requestId: 'test', onlyNew: true })).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await mapped('RACE-1')).toBeUndefined();
    expect(await mapped('RACE-2')).toBe('OE-2');
  });

  it('refuses a list that is not one: unpaired, a code twice, an unknown code, nothing chosen', async () => {
    await submit(key, 'BAD-1', 'Revizie periodică');
    const bad: Array<Array<[string, string]>> = [
      [['cod_op_service', 'BAD-1']],
      [
        ['cod_op_service', 'BAD-1'],
        ['cod_prestatie', 'OE-3'],
        ['cod_op_service', 'BAD-1'],
        ['cod_prestatie', 'OE-1'],
      ],
      [
        ['cod_op_service', 'BAD-1'],
        ['cod_prestatie', 'OE-99'],
      ],
      [
        ['cod_op_service', 'BAD-1'],
        ['cod_prestatie', ''],
      ],
      [
        ['cod_op_service', 'x'.repeat(65)],
        ['cod_prestatie', 'OE-3'],
      ],
      [
        ['cod_op_service', 'BAD-1'],
        ['cod_prestatie', 'OE-3'],
        ['numar', '-1'],
      ],
    ];
    for (const fields of bad) expect((await b.postList('/mapari/sugestii', fields)).status, JSON.stringify(fields)).toBe(422);
    expect(await mapped('BAD-1')).toBeUndefined();
  });
});

describe('serious codes need an explicit confirmation', () => {
  it('a row, the confirmation step and a change refuse a serious code without its box', async () => {
    const id = await submit(key, 'GRV-1', 'Schimb lamele ștergătoare');
    const editor = await (await b.get('/_fragments/mapari')).text();
    // Never preselected for a wiper; marked in the select.
    expect(editor).not.toMatch(/<option value="I-ODO" selected/);
    expect(editor).toContain('R-ODO · REPARAȚIE ODOMETRU — ⚠ cod cu consecințe legale');
    const refused = await b.post('/mapari', { cod_op_service: 'GRV-1', cod_prestatie: 'I-ODO' });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain('Codul I-ODO are consecințe legale');
    expect(await mapped('GRV-1')).toBeUndefined();

    const step = await b.postList('/mapari/sugestii', [
      ['confirmat', '1'],
      ['cod_op_service', 'GRV-1'],
      ['cod_prestatie', 'I-ODO'],
      ['numar', '1'],
    ]);
    expect(step.status).toBe(422);
    expect(await step.text()).toContain('⚠ cod cu consecințe legale');
    expect(await mapped('GRV-1')).toBeUndefined();

    const ok = await b.post('/mapari', { cod_op_service: 'GRV-1', cod_prestatie: 'I-ODO', confirm_grav: 'GRV-1' });
    expect(ok.status).toBe(200);
    expect(await mapped('GRV-1')).toBe('I-ODO');
    expect(await status(id)).not.toBe('needs_mapping');
    expect((await b.post('/mapari/GRV-1/modifica', { cod_prestatie: 'OE-F' })).status).toBe(422);
    expect(await mapped('GRV-1')).toBe('I-ODO');
  });

  it("the panel's inline mapping asks the same", async () => {
    const id = await submit(key, 'GRV-P', 'Înlocuire bec far');
    const panel = await (await b.get(`/_fragments/trimitere/${id}`)).text();
    expect(panel).not.toMatch(/<option value="I-ODO" selected/);
    expect(panel).toContain('Sugestie:');
    expect((await b.post(`/trimitere/${id}/mapeaza`, { cod_op_service: 'GRV-P', cod_prestatie: 'R-ODO' })).status).toBe(422);
    expect(await mapped('GRV-P')).toBeUndefined();
  });
});

describe('a low-confidence suggestion is not preselected', () => {
  it('starts on "Alegeți codul…", says why and how sure; a blank row is refused', async () => {
    await submit(key, 'LOW-1', 'Polish faruri');
    const html = await (await b.get('/_fragments/mapari')).text();
    const row = html.slice(html.indexOf('LOW-1'), html.indexOf('</tr>', html.indexOf('LOW-1')));
    expect(row).toMatch(/<option value="" selected="">Alegeți codul…<\/option>/);
    expect(row).toMatch(/după cuvintele din denumire; nesigur \(\d+ %\)/);
    expect(row).toContain('Nu este preselectată');
    const blank = await b.post('/mapari', { cod_op_service: 'LOW-1', cod_prestatie: '' });
    expect(blank.status).toBe(422);
    expect(await blank.text()).toContain('rândul nu se salvează fără cod');
    expect(await mapped('LOW-1')).toBeUndefined();
  });
});

describe('a saved mapping can be changed, with its history', () => {
  it('re-resolves only held submissions; journals who changed what; another account gets the 404 of a missing one', async () => {
    const sent = await submit(key, 'CH-1', 'Schimb ulei motor');
    expect((await b.post('/mapari', { cod_op_service: 'CH-1', cod_prestatie: 'OE-1' })).status).toBe(200);
    await t.ctx.sql`UPDATE submissions SET status = 'sent' WHERE id = ${sent}`;
    const held = await submit(key, 'CH-1', 'Schimb ulei motor'); // resolved at once with OE-1
    const res = await b.post('/mapari/CH-1/modifica', { cod_prestatie: 'OE-2' });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('Maparea CH-1 indică acum OE-2');
    expect(html).toMatch(/modificată <span class="mono">OE-1 → OE-2<\/span> · de user/);
    expect(await mapped('CH-1')).toBe('OE-2');
    // What was sent stays as sent; a submission already resolved keeps its code.
    const codes = await t.ctx.sql<{ id: number; prestatii: Array<{ cod_prestatie: string }> }[]>`SELECT id, prestatii FROM submissions WHERE id IN (${sent}, ${held}) ORDER BY id`;
    expect(codes.map((r) => r.prestatii[0]?.cod_prestatie)).toEqual(['OE-1', 'OE-1']);
    await t.ctx.journal.flush();
    const [event] = await t.ctx.sql<{ data: Record<string, unknown> }[]>`SELECT data FROM app_events WHERE event = 'mapare_modificata' ORDER BY id DESC LIMIT 1`;
    expect(event?.data).toMatchObject({ cod_op_service: 'CH-1', cod_vechi: 'OE-1', cod_prestatie: 'OE-2', actor: expect.stringMatching(/^utilizator:\d+$/) });
    expect(JSON.stringify(event?.data)).not.toContain(email);

    expect((await t.call('POST', '/v1/mapari', { key: otherKey, body: { cod_op_service: 'FOREIGN-1', cod_prestatie: 'OE-1' } })).status).toBe(200);
    const foreign = await b.post('/mapari/FOREIGN-1/modifica', { cod_prestatie: 'OE-2' });
    const missing = await b.post('/mapari/NU-EXISTA-1/modifica', { cod_prestatie: 'OE-2' });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect((await foreign.text()).replaceAll('FOREIGN-1', 'X')).toBe((await missing.text()).replaceAll('NU-EXISTA-1', 'X'));
    expect((await b.post('/mapari/FOREIGN-1/sterge')).status).toBe(404);
    expect(await t.ctx.sql`SELECT 1 FROM operation_mappings WHERE cod_op_service = 'FOREIGN-1'`).toHaveLength(1);
    expect((await b.post('/mapari/CH-1/modifica', { cod_prestatie: 'OE-99' })).status).toBe(422);
    expect((await b.post('/mapari/CH-1/modifica', { cod_prestatie: '<b>' })).status).toBe(422);
  });

  it('deletion is journaled with who', async () => {
    expect((await b.post('/mapari', { cod_op_service: 'DEL-2', cod_prestatie: 'OE-1' })).status).toBe(200);
    expect((await b.post('/mapari/DEL-2/sterge')).status).toBe(200);
    await t.ctx.journal.flush();
    const [event] = await t.ctx.sql<{ data: Record<string, unknown> }[]>`SELECT data FROM app_events WHERE event = 'mapare_stearsa' ORDER BY id DESC LIMIT 1`;
    expect(event?.data).toMatchObject({ cod_op_service: 'DEL-2', cod_vechi: 'OE-1', actor: expect.stringMatching(/^utilizator:\d+$/) });
  });
});

describe('text rules in Mapări', () => {
  it('tests against the pending names, creates, edits, deletes; journaled with who; scoped to the account', async () => {
    await submit(key, 'TR-1', 'Înlocuire plăcuțe frână față');
    await submit(otherKey, 'TR-X', 'Înlocuire plăcuțe frână spate');
    const test = await b.post('/mapari/reguli/test', { pattern: 'placute frana', cod_prestatie: 'OE-2' });
    expect(test.status).toBe(200);
    const tested = await test.text();
    expect(tested).toContain('TR-1');
    expect(tested).not.toContain('TR-X');
    expect(await t.ctx.sql`SELECT 1 FROM text_rules`).toHaveLength(0);

    const serious = await (await b.post('/mapari/reguli/test', { pattern: 'placute frana', cod_prestatie: 'OE-F' })).text();
    expect(serious).toContain('⚠ cod cu consecințe legale');
    expect(serious).toContain('denumirea nu vorbește de ce afirmă codul OE-F');
    expect((await b.post('/mapari/reguli', { pattern: 'placute frana', cod_prestatie: 'OE-F', priority: '5' })).status).toBe(422);
    const created = await b.post('/mapari/reguli', { pattern: 'placute frana', cod_prestatie: 'OE-2', priority: '5' });
    expect(created.status).toBe(200);
    expect(await created.text()).toContain('o trimitere a fost repusă în coadă');
    const [rule] = await t.ctx.sql<{ id: number }[]>`SELECT id FROM text_rules WHERE pattern = 'placute frana'`;
    const edited = await b.post(`/mapari/reguli/${rule!.id}/modifica`, { pattern: 'placute', cod_prestatie: 'OE-1', priority: '' });
    expect(edited.status).toBe(200);
    expect((await t.ctx.sql`SELECT pattern, cod_prestatie, priority FROM text_rules WHERE id = ${rule!.id}`)[0]).toMatchObject({
      pattern: 'placute',
      cod_prestatie: 'OE-1',
      priority: 100,
    });

    const other = await json(await t.call('POST', '/v1/reguli-text', { key: otherKey, body: { pattern: 'strain', cod_prestatie: 'OE-1' } }));
    const otherId = (other.regula as { id: number }).id;
    expect((await b.post(`/mapari/reguli/${otherId}/sterge`)).status).toBe(404);
    expect((await b.post(`/mapari/reguli/${otherId}/modifica`, { pattern: 'furat', cod_prestatie: 'OE-2' })).status).toBe(404);
    expect((await b.post('/mapari/reguli/99999999/sterge')).status).toBe(404);
    expect((await b.post('/mapari/reguli/abc/sterge')).status).toBe(404);

    expect((await b.post(`/mapari/reguli/${rule!.id}/sterge`)).status).toBe(200);
    expect(await t.ctx.sql`SELECT 1 FROM text_rules WHERE id = ${rule!.id}`).toHaveLength(0);
    await t.ctx.journal.flush();
    const events = await t.ctx.sql<
      { event: string; data: Record<string, unknown> }[]
    >`SELECT event, data FROM app_events WHERE event LIKE 'regula_text_%' AND data->>'actor' LIKE 'utilizator:%' ORDER BY id`;
    expect(events.map((e) => e.event)).toEqual(['regula_text_salvata', 'regula_text_salvata', 'regula_text_stearsa']);
  });

  it('refuses blank, short, oversized and hostile values; HTML in a pattern is escaped', async () => {
    const forms: Array<Record<string, string>> = [
      { pattern: '', cod_prestatie: 'OE-1' },
      { pattern: 'x', cod_prestatie: 'OE-1' },
      { pattern: 'y'.repeat(201), cod_prestatie: 'OE-1' },
      { pattern: 'abc', cod_prestatie: '' },
      { pattern: 'abc', cod_prestatie: 'OE-1', priority: '-3' },
      { pattern: 'abc', cod_prestatie: 'OE-1', priority: '1e9' },
    ];
    for (const form of forms) {
      expect((await b.post('/mapari/reguli', form)).status, JSON.stringify(form)).toBe(422);
    }
    expect((await b.post('/mapari/reguli', { pattern: 'abc', cod_prestatie: 'NU-EXISTA' })).status).toBe(422);
    // A serious code with its box ticked is the clerk's explicit choice.
    expect((await b.post('/mapari/reguli', { pattern: 'airbag declansat', cod_prestatie: 'OE-R', confirm_grav: 'regula' })).status).toBe(200);
    const hostile = '<script>alert(1)</script>';
    const test = await (await b.post('/mapari/reguli/test', { pattern: hostile })).text();
    expect(test).not.toContain('<script>');
    expect(test).toContain('&lt;script&gt;');
    expect((await b.post('/mapari/reguli', { pattern: hostile, cod_prestatie: 'OE-1' })).status).toBe(200);
    const page = await (await b.get('/mapari')).text();
    expect(page).not.toContain(hostile);
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

async function json(res: Response) {
  return (await res.json()) as Record<string, unknown>;
}
