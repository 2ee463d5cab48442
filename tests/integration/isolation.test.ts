import type { JournalEventName } from '../../src/journal/events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { makeSubmission } from '../helpers/factories';

// Issue 9, isolation: requests share statements (the insert batcher, the journal), but one
// request's failure never touches another's.

let t: TestApp;
let keyA: string;
let keyB: string;
let accountB: number;

beforeAll(async () => {
  t = await startTestApp();
  keyA = await t.createKey(await t.createAccount('A'));
  accountB = await t.createAccount('B');
  keyB = await t.createKey(accountB);
});
afterAll(() => t.close());

const countFor = async (accountId: number) => Number((await t.ctx.sql`SELECT count(*)::int AS n FROM submissions WHERE account_id = ${accountId}`)[0]!.n);

describe('a rejected row fails its own request only', () => {
  it("A's 40 bodies with a NUL in b64Image beside B's 200 valid posts: every post of B is answered 200, stored and journalled", async () => {
    const honest = Array.from({ length: 200 }, () => t.call('POST', '/v1/prezentari', { key: keyB, body: makeSubmission() }));
    const hostile = Array.from({ length: 40 }, () => t.call('POST', '/v1/prezentari', { key: keyA, body: makeSubmission({ b64Image: 'QUJD\u0000' }) }));
    const answers = await Promise.all(honest);
    await Promise.all(hostile);
    expect(answers.map((r) => r.status)).toEqual(Array(200).fill(200));
    expect(await countFor(accountB)).toBe(200);
    await t.ctx.journal.flush();
    const [row] = await t.ctx.sql`SELECT count(*)::int AS n FROM app_events WHERE event = 'api_prezentari' AND account_id = ${accountB}`;
    expect(row!.n).toBe(200);
  });

  it('a row PostgreSQL refuses inside the shared insert statement fails alone', async () => {
    const before = await countFor(accountB);
    // Straight into the batcher, past the edge's checks: jsonb cannot hold \u0000.
    const bad = Array.from({ length: 10 }, (_, i) =>
      t.ctx.inserts.insert({
        accountId: accountB,
        status: 'queued',
        payloadJson: { x: '\u0000' },
        idempotencyKey: `bad-${i}`,
        legacyKey: `bad-legacy-${i}`,
        vin: 'WDB1234561A654321',
        nrInm: 'B1',
        dataPrestatie: '2025-03-14',
        prestatii: [],
        erori: [],
        nemapate: [],
        motiv: null,
        regCredsEnc: null,
        purgeAfter: null,
        requestId: 'r',
      }),
    );
    const honest = Array.from({ length: 100 }, () => t.call('POST', '/v1/prezentari', { key: keyB, body: makeSubmission() }));
    const results = await Promise.allSettled(bad);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect((await Promise.all(honest)).map((r) => r.status)).toEqual(Array(100).fill(200));
    expect(await countFor(accountB)).toBe(before + 100);
  });

  it('a journal event PostgreSQL refuses does not take the others of its batch with it', async () => {
    const marker = `iso-${Date.now()}`;
    for (let i = 0; i < 50; i++) {
      // account_id out of the integer range: this one row fails the shared insert.
      t.ctx.journal.write({ event: 'test_izolare' as JournalEventName, requestId: marker, accountId: i === 25 ? 2 ** 40 : accountB, data: { i } });
    }
    await t.ctx.journal.flush();
    const [row] = await t.ctx.sql`SELECT count(*)::int AS n FROM app_events WHERE event = 'test_izolare' AND request_id = ${marker}`;
    expect(row!.n).toBe(49);
  });
});

describe('an unexpected database error is journalled with its SQLSTATE, never with the values of the query', () => {
  it('no plate, VIN or image in app_events or the log file', async () => {
    const plate = 'CJ77SECR';
    const vin = 'WDB9876543Z123456';
    const image = 'SEKRETIMG'.repeat(300);
    // Break the insert for this one request: a trigger refuses the row with its values.
    await t.ctx.sql.unsafe(`
      CREATE OR REPLACE FUNCTION refuse_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.nr_inm = '${plate}' THEN RAISE EXCEPTION 'refuzat' USING ERRCODE = '23514'; END IF; RETURN NEW; END $$;
      DROP TRIGGER IF EXISTS refuse_once ON submissions;
      CREATE TRIGGER refuse_once BEFORE INSERT ON submissions FOR EACH ROW EXECUTE FUNCTION refuse_once();`);
    const res = await t.call('POST', '/v1/prezentari', { key: keyB, body: makeSubmission({ nrInm: plate, vin, b64Image: Buffer.from(image).toString('base64') }) });
    expect(res.status).toBe(500);
    const body = await res.text();
    expect(body).not.toContain(plate);
    await t.ctx.sql.unsafe('DROP TRIGGER refuse_once ON submissions');
    await t.ctx.journal.flush();
    const events = await t.ctx.sql`SELECT data FROM app_events WHERE event = 'eroare_neprevazuta'`;
    expect(events.length).toBeGreaterThan(0);
    const stored = JSON.stringify(events);
    const file = readFileSync(join(t.dataDir, 'logs', 'test.log'), 'utf8');
    for (const text of [stored, file]) {
      expect(text).not.toContain(plate);
      expect(text).not.toContain(vin);
      expect(text).not.toContain(Buffer.from(image).toString('base64').slice(0, 40));
    }
    expect(stored).toContain('"sqlstate":"23514"');
  });
});

describe('concurrent saves of one account queue behind each other instead of deadlocking', () => {
  it('80 mapping saves and 80 text-rule saves with held submissions: every one answered 2xx', async () => {
    const key = await t.createKey(await t.createAccount('C'));
    const codes = Array.from({ length: 20 }, (_, i) => `OP-${i}`);
    for (let i = 0; i < 120; i++) {
      const res = await t.call('POST', '/v1/prezentari', { key, body: makeSubmission({ prestatii: [{ cod_op_service: codes[i % 20]!, denumire: `lucrare ${i % 20}` }] }) });
      expect((await json(res)).status).toBe('needs_mapping');
    }
    const targets = ['OE-1', 'OE-2', 'OE-3', 'OE-4'];
    const mappings = Array.from({ length: 80 }, (_, i) => t.call('POST', '/v1/mapari', { key, body: { cod_op_service: codes[i % 20]!, cod_prestatie: targets[i % 4]! } }));
    const rules = Array.from({ length: 80 }, (_, i) =>
      t.call('POST', '/v1/reguli-text', { key, body: { pattern: `lucrare ${i % 20}`, cod_prestatie: targets[i % 4]!, priority: i } }),
    );
    const statuses = (await Promise.all([...mappings, ...rules])).map((r) => r.status);
    expect(statuses.filter((s) => s >= 300)).toEqual([]);
    const [held] = await t.ctx
      .sql`SELECT count(*)::int AS n FROM submissions s JOIN api_keys k ON k.account_id = s.account_id WHERE k.key_hash IS NOT NULL AND s.status = 'needs_mapping' AND s.account_id = (SELECT account_id FROM operation_mappings ORDER BY id DESC LIMIT 1)`;
    expect(held!.n).toBe(0);
  }, 60_000);
});
