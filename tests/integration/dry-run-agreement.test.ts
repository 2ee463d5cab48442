import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  const accountId = await t.createAccount();
  key = await t.createKey(accountId);
  await t.ctx.sql`INSERT INTO operation_mappings (account_id, cod_op_service, cod_prestatie) VALUES (${accountId}, 'MAP-1', 'OE-2'), (${accountId}, 'MAP-ODO', 'R-ODO')`;
  await t.ctx.sql`INSERT INTO text_rules (account_id, pattern, cod_prestatie, priority) VALUES (${accountId}, 'frana', 'OE-F', 1)`;
});
afterAll(() => t.close());

// Payloads mixing valid and invalid values of every field, and every way an item resolves.
const item = fc.oneof(
  fc.constantFrom('OE-1', 'oe-3', 'R-ODO', 'I-ODO', 'XX-9').map((cod_prestatie) => ({ cod_prestatie })),
  fc.record({ cod_op_service: fc.constantFrom('MAP-1', 'MAP-ODO', 'NEMAPAT', 'Z9'), denumire: fc.constantFrom('Plăcuțe frână', 'Revizie', '', 'frana spate') }),
);
const payload = fc.record({
  vin: fc.constantFrom('WDB1234561A654321', ' wdb1234561a654321 ', 'WDB1234561O654321', 'SHORT'),
  nrInm: fc.constantFrom('B123ABC', 'b 12', 'CJ01XYZ'),
  dataPrestatie: fc.constantFrom('2025-01-15', '2024-11-30', '2099-01-01', '15.01.2025', '2025-02-30'),
  odometruInitial: fc.option(fc.constantFrom(100, 200000, '150.0', 'abc'), { nil: undefined }),
  odometruFinal: fc.constantFrom(150000, '150000.0', 'x', null),
  prestatii: fc.array(item, { minLength: 0, maxLength: 3 }),
  b64Image: fc.constantFrom('', 'QUJD', 'not base64!'),
  on_unmapped_error: fc.option(fc.boolean(), { nil: undefined }),
});

describe('the dry run and the real POST reach the same verdict', () => {
  it('for generated payloads', async () => {
    await fc.assert(
      fc.asyncProperty(payload, async (body) => {
        const dry = await json(await t.call('POST', '/v1/prezentari/valideaza', { key, body }));
        const real = await json(await t.call('POST', '/v1/prezentari', { key, body }));
        if (real.status === 'error') {
          expect(dry.respins).toBe(true);
          expect(real.submission_id).toBeNull();
        } else {
          expect(dry.respins).toBe(false);
          // A duplicate reports the stored status, which is the verdict it got when first posted.
          expect(dry.status_estimat).toBe(real.status);
        }
        expect(dry.nemapate).toEqual(real.nemapate);
        if (!real.duplicate) expect((dry.erori as Array<{ cod: string }>).map((e) => e.cod)).toEqual((real.erori as Array<{ cod: string }>).map((e) => e.cod));
      }),
      { numRuns: 150 },
    );
  });

  it('the dry run writes nothing', async () => {
    const before = await t.ctx.sql`SELECT count(*)::int AS n FROM submissions`;
    const body = { vin: 'WDB1234561A650000', nrInm: 'B1', dataPrestatie: '2025-01-15', odometruFinal: 5, prestatii: [{ cod_prestatie: 'OE-1' }] };
    const dry = await json(await t.call('POST', '/v1/prezentari/valideaza', { key, body }));
    expect(dry).toMatchObject({ status_estimat: 'queued', erori: [], nemapate: [], prestatii: [{ cod_prestatie: 'OE-1', sursa: 'nomenclator' }] });
    expect(await t.ctx.sql`SELECT count(*)::int AS n FROM submissions`).toEqual(before);
  });
});
