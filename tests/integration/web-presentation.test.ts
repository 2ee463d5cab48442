import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS_LABEL } from '../../src/domain/statuses';
import { startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { stage } from '../helpers/import-flow';
import { csvFile, HEADER, xlsxFile } from '../helpers/import-files';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';
import { webStaged } from '../helpers/web-import';

// Issue 31, points 1 to 4, over HTTP: a committed import's rows each show the state of the
// submission they became (and why the others did not); a missing or foreign id opened as a
// page is the layout's 404; the count to type is accepted as the screen writes it; the
// messages, dates and journal details are in the clerk's words.
let t: TestApp;
let b: ReturnType<typeof browser>;
let key: string;
let otherKey: string;

const hx = { 'HX-Request': 'true' };
const row = (i: number, overrides: Partial<Record<'vin' | 'date' | 'km' | 'code', string>> = {}) => [
  overrides.vin ?? `WDB1234561A6${String(i).padStart(5, '0')}`,
  `B-${i}-ABC`,
  overrides.date ?? '14.03.2025',
  '',
  overrides.km ?? String(150_000 + i),
  overrides.code ?? 'OE-3',
  'Revizie',
];
const screen = async (id: number) => (await b.get(`/_import/${id}`, hx)).text();
const hashOf = (html: string) => /name="rows_hash" value="([0-9a-f]{64})"/.exec(html)?.[1] ?? '';
/** The state cell of the preview's row `rowIndex`. */
const stateCell = (html: string, rowIndex: number) => /<td data-label="Stare">([\s\S]*?)<\/td>/.exec(html.split(`id="r-${rowIndex}"`)[1] ?? '')?.[1] ?? '';

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const account = await t.createAccount();
  key = await t.createKey(account);
  otherKey = await t.createKey(await t.createAccount('Alt service'));
  b = browser(t);
  await b.login((await makeUser(t, account)).email);
  await b.get('/');
});
afterAll(() => t.close());

describe('a committed import: each row shows what became of it', () => {
  it('the submission’s state now, in the Trimiteri list’s words, with its link; a row left out says why', async () => {
    const data = [
      row(1),
      row(2),
      row(3),
      row(4, { vin: 'SHORT' }), // needs_data: goes in, held for its data
      row(5, { code: 'X-NEMAPAT' }), // left out: its code waits for a mapping
      row(1), // left out: the same as the first (which is in Trimiteri now)
    ];
    const id = await webStaged(t, b, csvFile([HEADER, ...data]), 'amestec.csv');
    const before = await screen(id);
    const done = await b.post(`/_import/${id}/confirma`, { numar: '4', rows_hash: hashOf(before) }, hx);
    expect(done.status).toBe(200);

    const made = await t.ctx.sql<{ row_index: number; submission_id: string | null }[]>`
      SELECT row_index, submission_id FROM import_rows WHERE batch_id = ${id} ORDER BY row_index`;
    const [first, second, third, short, unmapped, repeat] = made;
    // The worker's outcomes: one refused by the registry, one sent, one still queued.
    await t.ctx.sql`UPDATE submissions SET status = 'error' WHERE id = ${first!.submission_id}`;
    await t.ctx.sql`UPDATE submissions SET status = 'sent', sent_at = now(), registry_id = 'REG-9' WHERE id = ${second!.submission_id}`;

    const page = await (await b.get(`/import/${id}`)).text();
    expect(page).not.toContain('Trimis deja');
    const expected: Array<[typeof first, string]> = [
      [first, 'error'],
      [second, 'sent'],
      [third, 'queued'],
      [short, 'needs_data'],
    ];
    for (const [made, status] of expected) {
      const cell = stateCell(page, made!.row_index);
      expect(cell, status).toContain(`class="chip s-${status}"`);
      expect(cell, status).toContain(STATUS_LABEL[status as keyof typeof STATUS_LABEL]);
      expect(cell, status).toContain(`href="/trimiteri/${made!.submission_id}"`);
    }
    expect(unmapped!.submission_id).toBeNull();
    expect(stateCell(page, unmapped!.row_index)).toContain('Lăsat deoparte');
    expect(stateCell(page, unmapped!.row_index)).toContain('Codul operației nu avea un cod al registrului');
    expect(stateCell(page, repeat!.row_index)).toContain('Aceeași prezentare era deja în Trimiteri');
    expect(stateCell(page, repeat!.row_index)).toContain(`href="/trimiteri/${first!.submission_id}"`);
    // Two left out, said with the plural's verb; four in.
    expect(page).toContain('4 rânduri au intrat în Trimiteri; 2 rânduri au rămas deoparte.');
  });

  it('one row left out is said in the singular', async () => {
    // Mostly registry codes: the column is read as the registry's code, the other one waits for a mapping.
    const data = [row(20), row(21), row(22), row(23), row(24), row(25, { code: 'X-UNUL' })];
    const id = await webStaged(t, b, csvFile([HEADER, ...data]), 'unul.csv');
    const before = await screen(id);
    // Before the commit, the summary's verb agrees with "un rând" too.
    expect(before).toContain('un rând</strong> cod nemapat: rămâne deoparte');
    expect(before).not.toMatch(/un rând<\/strong>[^.]*: rămân /);
    const done = await (await b.post(`/_import/${id}/confirma`, { numar: '5', rows_hash: hashOf(before) }, hx)).text();
    expect(done).toContain('5 rânduri au intrat în Trimiteri; un rând a rămas deoparte.');
    expect(done).not.toContain('un rând au');
  });
});

describe('a missing or another account’s id, opened as a page', () => {
  it('/trimiteri/{id} and /import/{id}: the layout’s 404 page, byte for byte the same for a foreign id as for a missing one', async () => {
    const foreignSubmission = Number(
      ((await (await t.call('POST', '/v1/prezentari', { key: otherKey, body: makeSubmission() })).json()) as { submission_id: number }).submission_id,
    );
    const foreignBatch = await stage(t, otherKey, csvFile([HEADER, row(30)]), 'alt.csv');
    const unknown = await (await b.get('/nu-exista-deloc')).text();
    for (const [foreign, missing] of [
      [`/trimiteri/${foreignSubmission}`, '/trimiteri/99999999'],
      [`/import/${foreignBatch}`, '/import/99999999'],
    ]) {
      const a = await b.get(foreign!);
      const m = await b.get(missing!);
      expect(a.status, foreign).toBe(404);
      expect(m.status, missing).toBe(404);
      const text = await a.text();
      expect(text, foreign).toBe(await m.text());
      expect(text, foreign).toContain('<html lang="ro">');
      expect(text, foreign).toContain('<title>Pagina nu există · Gateway prezentări</title>');
      // The same page as any unknown path.
      expect(text, foreign).toBe(unknown);
      expect(a.headers.get('content-security-policy'), foreign).toBeTruthy();
      expect(a.headers.get('cache-control'), foreign).toBe('no-store');
    }
    // An htmx fragment keeps its notice (swapped into its place, not a page).
    const fragment = await b.get(`/_import/${foreignBatch}`, hx);
    expect(fragment.status).toBe(404);
    const notice = await fragment.text();
    expect(notice).not.toContain('<html');
    expect(notice).toBe(await (await b.get('/_import/99999999', hx)).text());
  });
});

describe('the count to type', () => {
  it('is accepted as the screen writes it (1.001, 1 001, 1001); a wrong one is still refused', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) => row(1000 + i));
    const id = await stage(t, key, csvFile([HEADER, ...rows]), 'mare.csv');
    const html = await screen(id);
    const shown = /scrieți numărul de rânduri care intră în Trimiteri \(([^)]+)\)/.exec(html)?.[1];
    expect(shown).toBe('1.001');
    // The browser checks the box against its pattern before htmx sends it (as Chromium does).
    const pattern = /<input name="numar"[^>]*pattern="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&') ?? '';
    const accepts = (typed: string) => new RegExp(`^(?:${pattern})$`, 'v').test(typed);
    for (const typed of [shown!, '1001', '1 001', '1\u00a0001']) expect(accepts(typed), typed).toBe(true);
    for (const typed of ['1,001', 'o mie', '1.0.01', '']) expect(accepts(typed), typed).toBe(false);

    const wrong = await b.post(`/_import/${id}/confirma`, { numar: '1.002', rows_hash: hashOf(html) }, hx);
    expect(wrong.status).toBe(409);
    const refusal = await wrong.text();
    expect(refusal).toContain('Ați scris 1.002 rânduri; de trimis sunt acum 1.001 rânduri.');
    expect(refusal).not.toContain('n_to_commit');
    const badForm = await b.post(`/_import/${id}/confirma`, { numar: '1.0.01', rows_hash: hashOf(html) }, hx);
    expect(badForm.status).toBe(422);
    const done = await b.post(`/_import/${id}/confirma`, { numar: '1 001', rows_hash: hashOf(html) }, hx);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('1.001 rânduri au intrat în Trimiteri');
  }, 60_000);
});

describe('messages in the clerk’s words', () => {
  it('a row’s errors name fields by their labels and ask for dates as zz.ll.aaaa', async () => {
    const data = [row(40, { date: '31.02.2025' }), row(41, { km: '' }), row(42, { date: '01.01.2099' })];
    const id = await webStaged(t, b, csvFile([HEADER, ...data]), 'erori.csv');
    const html = await screen(id);
    expect(html).toContain('Date de corectat');
    expect(html).toContain('zz.ll.aaaa (ex. 14.03.2025)');
    expect(html).not.toContain('AAAA-LL-ZZ');
    expect(html).not.toMatch(/\b2025-03-14\b/);
    expect(html).toContain('Câmpul „Odometru final (km)” lipsește.');
    expect(html).not.toMatch(/\bodometruFinal\b(?!")/);
    // Today's date in a cause is shown as the clerk writes dates.
    expect(html).toMatch(/este după data de azi \(\d{2}\.\d{2}\.\d{4}\)/);
  });

  it('the refusals the dashboard shows name no API field (n_to_commit, rows_hash)', async () => {
    const id = await webStaged(t, b, csvFile([HEADER, row(50), row(51)]), 'doi.csv');
    const html = await screen(id);
    const wrong = await (await b.post(`/_import/${id}/confirma`, { numar: '3', rows_hash: hashOf(html) }, hx)).text();
    expect(wrong).toContain('Numărul de rânduri confirmat nu corespunde.');
    expect(wrong).not.toContain('n_to_commit');
    const stale = await (await b.post(`/_import/${id}/confirma`, { numar: '2', rows_hash: 'a'.repeat(64) }, hx)).text();
    expect(stale).toContain('Rândurile s-au schimbat de la previzualizare.');
    expect(stale).not.toContain('rows_hash');
  });

  it('an xlsx date is shown as the spreadsheet shows it, not as its serial', async () => {
    // 45730 is 14.03.2025 in Excel's 1900 date system: the number an xlsx stores for the date.
    const book = await xlsxFile({ Foaie: [HEADER, [`WDB1234561A700001`, 'B-70-ABC', 45730, '', 150_070, 'OE-3', 'Revizie']] });
    const id = await webStaged(t, b, book, 'date.xlsx');
    const html = await screen(id);
    expect(html).toContain('<span class="mono">14.03.2025</span> → <strong class="mono">14.03.2025</strong>');
    expect(html).not.toContain('45730');
  });

  it('the journal shows an event’s details as Romanian "label: value" pairs, not JSON', async () => {
    const accountId = Number((await t.ctx.sql<{ account_id: number }[]>`SELECT account_id FROM api_keys ORDER BY id LIMIT 1`)[0]!.account_id);
    await t.ctx.sql`INSERT INTO app_events (account_id, event, level, request_id, data) VALUES
      (${accountId}, 'import_confirmat', 'info', 'req-jurnal-1', ${JSON.stringify({ batch_id: 77, n_confirmed: 3, inserted: 3, counts: { ok: 2, needs_data: 1 } })}::jsonb)`;
    await t.ctx.sql`INSERT INTO app_events (account_id, event, level, request_id, submission_id, data) VALUES
      (${accountId}, 'submission_corrected', 'info', 'req-jurnal-2', 12, ${JSON.stringify({ from: 'needs_data', to: 'queued', bulk: true })}::jsonb)`;
    const page = await (await b.get('/jurnal?de_la=2000-01-01')).text();
    const details = [...page.matchAll(/<td class="details">([\s\S]*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    const pairs = (text: string | undefined) => new Set(text?.split('; '));
    const confirmed = pairs(details.find((d) => d.includes('importul: 77')));
    for (const pair of ['importul: 77', 'rânduri confirmate: 3', 'rânduri intrate în Trimiteri: 3', 'rândurile după stare: gata de trimis: 2, date de corectat: 1']) {
      expect(confirmed, pair).toContain(pair);
    }
    const corrected = pairs(details.find((d) => d.includes('#12')));
    for (const pair of ['trimiterea: #12', 'din starea: Date de completat', 'în starea: În coadă', 'în grup: da']) expect(corrected, pair).toContain(pair);
    expect(page).not.toContain('&quot;batch_id&quot;');
    expect(page).not.toContain('"batch_id"');
  });
});
