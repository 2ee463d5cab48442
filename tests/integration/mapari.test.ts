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

describe('nomenclator', () => {
  it('serves the 18 fallback codes', async () => {
    const body = await json(await t.call('GET', '/v1/nomenclator', { key }));
    const items = body.items as Array<{ cod: string }>;
    expect(items).toHaveLength(18);
    expect(items.map((i) => i.cod)).toEqual(expect.arrayContaining(['OE-1', 'OE-D', 'AITLV', 'R-ODO', 'I-ODO']));
    expect(Object.keys(items[0]!)).toEqual(['cod', 'denumire', 'sursa', 'updated_at']);
    expect(items[0]).toMatchObject({ sursa: 'fallback', updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/) });
  });
});

describe('mappings', () => {
  it('lists pending codes with counts and a preselected suggestion, per account', async () => {
    await post({ prestatii: [{ cod_op_service: 'REV-AN', denumire: 'Revizie periodică anuală' }] });
    await post({ prestatii: [{ cod_op_service: 'REV-AN', denumire: 'Revizie periodică anuală' }] });
    await post({ prestatii: [{ cod_op_service: 'SECRET-ALT', denumire: 'x' }] }, otherKey);
    const body = await json(await t.call('GET', '/v1/mapari/pending', { key }));
    const items = body.items as Array<Record<string, unknown>>;
    expect(items).toEqual([{ cod_op_service: 'REV-AN', denumire: 'Revizie periodică anuală', trimiteri: 2, sugestie: expect.objectContaining({ cod_prestatie: 'OE-3' }) }]);
  });

  it('refuses a code outside the nomenclator with a clear 400', async () => {
    const res = await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'REV-AN', cod_prestatie: 'OE-99' } });
    expect(res.status).toBe(400);
    // Named by its field, never repeated: an answer carries nothing the sender typed.
    const { cauza } = await json(res);
    expect(cauza).toContain('cod_prestatie');
    expect(cauza).not.toContain('OE-99');
    expect((await json(await t.call('GET', '/v1/mapari', { key }))).items).toEqual([]);
  });

  it('saving re-resolves held submissions: to queued, or needs_data when the code needs more', async () => {
    const a = await post({ prestatii: [{ cod_op_service: 'ODO-SCH', denumire: 'Schimb bord' }] });
    const b = await post({ prestatii: [{ cod_op_service: 'ODO-SCH', denumire: 'Schimb bord' }], odometruInitial: 10 });
    const foreign = await post({ prestatii: [{ cod_op_service: 'ODO-SCH', denumire: 'x' }] }, otherKey);
    const res = await json(await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'odo-sch', cod_prestatie: 'i-odo' } }));
    expect(res).toMatchObject({ mapare: { cod_op_service: 'ODO-SCH', cod_prestatie: 'I-ODO' }, reclasificate: { queued: 1, needs_data: 1 } });
    const status = async (id: unknown, k = key) => (await json(await t.call('GET', `/v1/prezentari/${id as number}`, { key: k }))).status;
    expect(await status(a.submission_id)).toBe('needs_data');
    expect(await status(b.submission_id)).toBe('queued');
    expect(await status(foreign.submission_id, otherKey)).toBe('needs_mapping');
    const mapped = await json(await t.call('GET', '/v1/mapari', { key }));
    expect(mapped.items).toEqual([expect.objectContaining({ cod_op_service: 'ODO-SCH', cod_prestatie: 'I-ODO', denumire_prestatie: 'ÎNLOCUIRE ODOMETRU' })]);
    expect((await json(await t.call('GET', '/v1/mapari', { key: otherKey }))).items).toEqual([]);
    // Later submissions with the code resolve at once.
    expect((await post({ prestatii: [{ cod_op_service: 'ODO-SCH', denumire: 'x' }], odometruInitial: 1 })).status).toBe('queued');
  });

  it('a mapping can be deleted; another account cannot see or delete it', async () => {
    await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'DEL-ME', cod_prestatie: 'OE-1' } });
    expect((await t.call('DELETE', '/v1/mapari/DEL-ME', { key: otherKey })).status).toBe(404);
    expect((await t.call('DELETE', '/v1/mapari/DEL-ME', { key })).status).toBe(200);
    expect((await t.call('DELETE', '/v1/mapari/DEL-ME', { key })).status).toBe(404);
  });

  it('a wrong body is a 422', async () => {
    expect((await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: '', cod_prestatie: 'OE-1' } })).status).toBe(422);
    expect((await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 5, cod_prestatie: 'OE-1' } })).status).toBe(422);
  });
});

describe('text rules', () => {
  it('CRUD, precedence after mappings, re-resolution and text_rule_hit in the journal', async () => {
    const held = await post({ prestatii: [{ cod_op_service: 'FRN-1', denumire: 'Înlocuire plăcuțe FRÂNĂ' }] });
    expect(held.status).toBe('needs_mapping');
    const created = await t.call('POST', '/v1/reguli-text', { key, body: { pattern: 'placute frana', cod_prestatie: 'OE-1', priority: 5 } });
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(body).toMatchObject({ regula: { pattern: 'placute frana', cod_prestatie: 'OE-1', priority: 5 }, reclasificate: { queued: 1 } });
    const ruleId = (body.regula as { id: number }).id;

    const direct = await post({ prestatii: [{ cod_op_service: 'FRN-2', denumire: 'plăcuțe frână spate' }] });
    expect(direct.status).toBe('queued');
    await t.ctx.journal.flush();
    const hits = await t.ctx.sql`SELECT data FROM app_events WHERE event = 'text_rule_hit'`;
    expect(hits.length).toBeGreaterThanOrEqual(2);
    expect(hits[0]!.data).toMatchObject({ rule_id: ruleId, cod_prestatie: 'OE-1' });

    expect((await json(await t.call('GET', '/v1/reguli-text', { key: otherKey }))).items).toEqual([]);
    expect((await t.call('PUT', `/v1/reguli-text/${ruleId}`, { key: otherKey, body: { pattern: 'abc', cod_prestatie: 'OE-2' } })).status).toBe(404);
    expect(await json(await t.call('PUT', `/v1/reguli-text/${ruleId}`, { key, body: { pattern: 'frana', cod_prestatie: 'OE-F' } }))).toMatchObject({
      regula: { cod_prestatie: 'OE-F' },
    });
    expect((await t.call('POST', '/v1/reguli-text', { key, body: { pattern: 'x', cod_prestatie: 'OE-1' } })).status).toBe(422);
    expect((await t.call('POST', '/v1/reguli-text', { key, body: { pattern: 'xyz', cod_prestatie: 'NU-EXISTA' } })).status).toBe(400);
    expect((await t.call('DELETE', `/v1/reguli-text/${ruleId}`, { key: otherKey })).status).toBe(404);
    expect((await t.call('DELETE', `/v1/reguli-text/${ruleId}`, { key })).status).toBe(200);
    expect((await t.call('DELETE', '/v1/reguli-text/99999999999', { key })).status).toBe(404);
  });
});
