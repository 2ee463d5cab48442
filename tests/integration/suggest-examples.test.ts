import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSubmission } from '../helpers/factories';
import { json, startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let key: string;
let otherKey: string;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
  otherKey = await t.createKey(await t.createAccount('Altul'));
});
afterAll(() => t.close());

const post = async (over: object, k = key) => json(await t.call('POST', '/v1/prezentari', { key: k, body: makeSubmission(over) }));
const pending = async (k: string) => (await json(await t.call('GET', '/v1/mapari/pending', { key: k }))).items as Array<Record<string, unknown>>;

describe('the pending list suggestion', () => {
  it('uses the trade vocabulary: "Revizie" → OE-3, "Schimb ulei" → OE-2, "Înlocuire filtru aer" → OE-2', async () => {
    await post({
      prestatii: [
        { cod_op_service: 'R1', denumire: 'Revizie' },
        { cod_op_service: 'U1', denumire: 'Schimb ulei' },
        { cod_op_service: 'F1', denumire: 'Înlocuire filtru aer' },
      ],
    });
    const byCode = Object.fromEntries((await pending(key)).map((i) => [i.cod_op_service, (i.sugestie as { cod_prestatie: string } | null)?.cod_prestatie]));
    expect(byCode).toMatchObject({ R1: 'OE-3', U1: 'OE-2', F1: 'OE-2' });
  });

  it("learns from the account's own mappings, never from another account's", async () => {
    // Account B maps a name-like code to an unusual choice; account A has the same name pending.
    expect((await t.call('POST', '/v1/mapari', { key: otherKey, body: { cod_op_service: 'POLISARE FARURI', cod_prestatie: 'OE-5' } })).status).toBe(200);
    await post({ prestatii: [{ cod_op_service: 'PF', denumire: 'Polisare faruri' }] });
    await post({ prestatii: [{ cod_op_service: 'PF2', denumire: 'Polisare faruri' }] }, otherKey);
    const mine = (await pending(key)).find((i) => i.cod_op_service === 'PF');
    expect((mine?.sugestie as { cod_prestatie?: string } | null)?.cod_prestatie).not.toBe('OE-5');
    const theirs = (await pending(otherKey)).find((i) => i.cod_op_service === 'PF2');
    expect(theirs?.sugestie).toMatchObject({ cod_prestatie: 'OE-5', sursa: 'exemplu' });
  });
});
