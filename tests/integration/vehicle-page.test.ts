import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';
import { browser, makeUser } from '../helpers/web';

// /vehicul/{VIN} without a browser: scoped by the account in its query, another account's VIN
// answered byte for byte as an unknown one, and read through its own index.
let t: TestApp;
let web: ReturnType<typeof browser>;

const VIN = 'WVWZZZ1KZ6W765432';
const THEIRS = 'TMBJJ7NE5F0765432';

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_SCRYPT_N: '1024' });
  const mine = await t.createAccount('Service A');
  const key = await t.createKey(mine);
  for (const [data, km] of [
    ['2025-02-01', 50_000],
    ['2025-01-01', 40_000],
    ['2025-03-01', 45_000],
  ] as const) {
    await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ vin: VIN, dataPrestatie: data, odometruFinal: km }) });
  }
  const other = await t.createAccount('Service B');
  const otherKey = await t.createKey(other);
  await t.call('POST', '/v1/prezentari', { key: otherKey, body: makeSubmission({ vin: THEIRS }) });
  await t.call('POST', '/v1/prezentari', { key: otherKey, body: makeSubmission({ vin: VIN, odometruFinal: 1 }) });
  const { email } = await makeUser(t, mine);
  web = browser(t);
  await web.login(email);
});
afterAll(() => t.close());

/** The page's main part, the VIN named in it replaced: what tells one VIN's page from another's. */
const main = (html: string, vin: string) => /<main[\s\S]*<\/main>/.exec(html)![0].replaceAll(vin, '<VIN>');

describe('GET /vehicul/{VIN}', () => {
  it('lists the account’s records in date order and marks the reading that goes down', async () => {
    const res = await web.get(`/vehicul/${VIN.toLowerCase()}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const dates = [...html.matchAll(/data-label="Data">([^<]+)</g)].map((m) => m[1]);
    expect(dates).toEqual(['01.01.2025', '01.02.2025', '01.03.2025']);
    expect(html.match(/class="went-down"/g)).toHaveLength(1);
    expect(html).toContain('scade: sub 50.000 km înregistrați înainte');
    expect(html).toContain('<svg class="odo-chart"');
    // The other account's reading of this VIN (1 km) is not there.
    expect(html).not.toContain('>1 km<');
  });

  it('answers another account’s VIN exactly as one never seen', async () => {
    const theirs = await web.get(`/vehicul/${THEIRS}`);
    const unknown = await web.get('/vehicul/VF1RFB00X51765432');
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(main(await theirs.text(), THEIRS)).toBe(main(await unknown.text(), 'VF1RFB00X51765432'));
  });

  it('reads one account’s VIN through its index, not the VIN’s rows of every account', async () => {
    await t.ctx.sql`ANALYZE submissions`;
    const plan = await t.ctx.sql.begin(async (tx) => {
      await tx`SET LOCAL enable_seqscan = off`;
      return tx.unsafe(`EXPLAIN SELECT id FROM submissions WHERE scope_account_id = 1 AND vin = '${VIN}' ORDER BY data_prestatie, id LIMIT 1001`);
    });
    const text = plan.map((r) => Object.values(r)[0]).join('\n');
    expect(text).toContain('submissions_account_vin_idx');
    expect(text).not.toMatch(/Sort/);
  });
});
