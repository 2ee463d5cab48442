import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { base64Bytes } from '../../src/domain/validate';
import { makeSubmission } from '../helpers/factories';

// Issue 17, part 4. Unknown JSON keys are accepted and ignored (the spec's versioning is
// additive: a client may send fields a newer gateway knows): never stored, never echoed, not
// part of the idempotency key. And the image limit counts decoded bytes, padding excluded.

// Not a multiple of 3, like the default 10 MiB: a photo of exactly this size ends in `==`.
const IMAGE_LIMIT = 3_001;
let t: TestApp;
let key: string;
let accountId: number;

beforeAll(async () => {
  t = await startTestApp({ GATEWAY_MAX_IMAGE_BYTES: String(IMAGE_LIMIT) });
  accountId = await t.createAccount();
  key = await t.createKey(accountId);
});
afterAll(() => t.close());

const EXTRA = 'cheieNouaClient7q';
const extra = { [EXTRA]: 1, [`${EXTRA}_obiect`]: { a: EXTRA } };
const rowsOf = async (table: string) => JSON.stringify(await t.ctx.sql.unsafe(`SELECT to_jsonb(x) AS r FROM ${table} x WHERE account_id = $1`, [accountId]));

describe('unknown keys are ignored, on every JSON body that allows newer fields', () => {
  it('POST /v1/prezentari: accepted, not stored (payload, credentials), not echoed, not in the idempotency key', async () => {
    const plain = makeSubmission({ reg_credentials: { username: 'u', password: 'parola-registru' } });
    const body = {
      ...plain,
      ...extra,
      prestatii: [{ cod_prestatie: 'OE-3', ...extra }],
      reg_credentials: { ...plain.reg_credentials, ...extra },
    };
    const res = await t.call('POST', '/v1/prezentari', { key, body });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).not.toContain(EXTRA);
    const { submission_id: id, status } = JSON.parse(text) as { submission_id: number; status: string };
    expect(status).toBe('queued');
    const [row] = await t.ctx.sql<{ reg_creds_enc: string }[]>`SELECT reg_creds_enc FROM submissions WHERE id = ${id}`;
    expect(await rowsOf('submissions')).not.toContain(EXTRA);
    expect(JSON.parse(t.ctx.keyring.decrypt(row!.reg_creds_enc))).toEqual({ username: 'u', password: 'parola-registru' });
    // The same content without the newer fields is the same submission.
    const again = await json(await t.call('POST', '/v1/prezentari', { key, body: plain }));
    expect(again.submission_id).toBe(id);
    expect(await (await t.call('GET', `/v1/prezentari/${id}`, { key })).text()).not.toContain(EXTRA);
  });

  it('POST /v1/prezentari/valideaza: the same verdict as without them, nothing echoed', async () => {
    const plain = makeSubmission({ prestatii: [{ cod_op_service: 'NOU-1', denumire: 'Revizie' }] });
    const withExtra = { ...plain, ...extra, prestatii: [{ ...plain.prestatii[0]!, ...extra }] };
    const [a, b] = [await t.call('POST', '/v1/prezentari/valideaza', { key, body: plain }), await t.call('POST', '/v1/prezentari/valideaza', { key, body: withExtra })];
    expect(b.status).toBe(200);
    const text = await b.text();
    expect(text).not.toContain(EXTRA);
    expect(JSON.parse(text)).toEqual(await a.json());
  });

  it('POST /v1/conturi/reg-creds: only username and password are sealed', async () => {
    const res = await t.call('POST', '/v1/conturi/reg-creds', { key, body: { username: 'cont', password: 'parola-cont', ...extra } });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain(EXTRA);
    const [account] = await t.ctx.sql<{ reg_creds_enc: string }[]>`SELECT reg_creds_enc FROM accounts WHERE id = ${accountId}`;
    expect(JSON.parse(t.ctx.keyring.decrypt(account!.reg_creds_enc))).toEqual({ username: 'cont', password: 'parola-cont' });
  });

  it('POST /v1/mapari and POST /v1/reguli-text: saved as without them', async () => {
    const mapping = await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: 'NOU-1', cod_prestatie: 'OE-3', ...extra } });
    expect(mapping.status).toBe(200);
    expect(await mapping.text()).not.toContain(EXTRA);
    const rule = await t.call('POST', '/v1/reguli-text', { key, body: { pattern: 'schimb ulei', cod_prestatie: 'OE-3', ...extra } });
    expect(rule.status).toBe(201);
    const ruleText = await rule.text();
    expect(ruleText).not.toContain(EXTRA);
    const ruleId = (JSON.parse(ruleText) as { regula: { id: number } }).regula.id;
    const replaced = await t.call('PUT', `/v1/reguli-text/${ruleId}`, { key, body: { pattern: 'schimb filtru', cod_prestatie: 'OE-3', ...extra } });
    expect(replaced.status).toBe(200);
    expect(await rowsOf('operation_mappings')).not.toContain(EXTRA);
    expect(await rowsOf('text_rules')).not.toContain(EXTRA);
    expect(await rowsOf('operation_mappings')).toContain('NOU-1');
  });

  it('the import’s patches still refuse them (an unknown name there is a typo that would change nothing)', async () => {
    const res = await t.call('POST', '/v1/import/1/rand/1/revizuire', { key, body: { include: true, [EXTRA]: 1 } });
    expect(res.status).toBe(422);
    expect(await res.text()).not.toContain(EXTRA);
  });
});

describe('b64Image: the limit is on decoded bytes, padding excluded', () => {
  const photo = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

  it('base64Bytes is the decoded size for every padding', () => {
    for (let n = 0; n < 50; n++) expect(base64Bytes(photo(n)), String(n)).toBe(n);
  });

  it('an image of exactly the limit is accepted (its base64 ends in ==), on the post and the dry run', async () => {
    expect(photo(IMAGE_LIMIT).endsWith('==')).toBe(true);
    for (const path of ['/v1/prezentari', '/v1/prezentari/valideaza']) {
      const res = await t.call('POST', path, { key, body: makeSubmission({ b64Image: photo(IMAGE_LIMIT) }) });
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
    }
  });

  it('one byte more is a 413 IMAGINE_PREA_MARE, nothing stored', async () => {
    const before = (await t.ctx.sql`SELECT count(*)::int AS n FROM submissions`)[0]!.n;
    for (const path of ['/v1/prezentari', '/v1/prezentari/valideaza']) {
      const res = await t.call('POST', path, { key, body: makeSubmission({ b64Image: photo(IMAGE_LIMIT + 1) }) });
      expect(res.status, path).toBe(413);
      expect((await json(res)).cod).toBe('IMAGINE_PREA_MARE');
    }
    expect((await t.ctx.sql`SELECT count(*)::int AS n FROM submissions`)[0]!.n).toBe(before);
  });
});
