import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { browser, FAST_SCRYPT, makeUser } from '../helpers/web';

// Issue 17: a date taken from a query is a day of the calendar (one schema, IsoDateParam, on the
// API, the submissions list and the journal); `2025-02-30` was a 500 on /jurnal.

let t: TestApp;
let key: string;
let b: ReturnType<typeof browser>;

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  const account = await t.createAccount();
  key = await t.createKey(account);
  b = browser(t);
  await b.login((await makeUser(t, account)).email);
});
afterAll(() => t.close());

const NOT_DAYS = ['2025-02-30', '2025-13-45', '0000-00-00', '0000-01-01', '2025-04-31', '2023-02-29'];

async function errorRows() {
  await t.ctx.journal.flush();
  return t.ctx.sql`SELECT event FROM app_events WHERE level = 'error'`;
}

describe('a date that is no day of the calendar', () => {
  it.each(NOT_DAYS)('%s: the journal page and the submissions list say the filter is not valid, no 500', async (day) => {
    for (const path of [`/jurnal?de_la=${day}`, `/jurnal?pana_la=${day}`, `/_fragments/coada?pana_la=${day}`]) {
      const res = await b.get(path);
      expect(res.status, path).toBe(422);
      expect(await res.text(), path).toContain('Cererea nu este validă.');
    }
    // The home page shows its unfiltered list under the notice (a page, not an error).
    const home = await b.get(`/?de_la=${day}`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Cererea nu este validă.');
    expect(await errorRows()).toEqual([]);
  });

  it.each(NOT_DAYS)('%s: the API list and the audit export are a 422 naming the parameter', async (day) => {
    for (const [path, param] of [
      [`/v1/prezentari?date_from=${day}`, 'date_from'],
      [`/v1/audit/export?status=all&date_to=${day}`, 'date_to'],
    ] as const) {
      const res = await t.call('GET', path, { key });
      expect(res.status, path).toBe(422);
      const { detail } = (await res.json()) as { detail: Array<{ loc: string[]; msg: string }> };
      expect(detail[0]!.loc).toEqual(['query', param]);
      expect(detail[0]!.msg).toMatch(/zi din calendar/);
    }
  });

  it('real days, a leap day among them, still filter', async () => {
    for (const path of ['/jurnal?de_la=2024-02-29&pana_la=2025-12-31', '/_fragments/coada?de_la=2024-02-29']) expect((await b.get(path)).status, path).toBe(200);
    expect((await t.call('GET', '/v1/prezentari?date_from=2024-02-29&date_to=2025-12-31', { key })).status).toBe(200);
    expect((await t.call('GET', '/v1/audit/export?status=all&date_from=2024-02-29', { key })).status).toBe(200);
  });
});
