import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { exportBytes, readSemicolonCsv } from '../helpers/csv';
import { HEADER, xlsxFile } from '../helpers/import-files';
import { preview, stage } from '../helpers/import-flow';

let t: TestApp;
let key: string;
let accountId: number;

const VIN = (n: number) => `WDB1234561A${String(n).padStart(6, '0')}`;
const row = (n: number, code = 'OE-3', odo: number | string = 100000 + n) => [VIN(n), `B${n}ABC`, '14.03.2025', null, odo, null, null, code];
const HEADER_DIRECT = [...HEADER, 'Cod prestație'];

beforeAll(async () => {
  t = await startTestApp();
  accountId = await t.createAccount();
  key = await t.createKey(accountId);
});
afterAll(() => t.close());

const commit = (batchId: number, body: unknown, k = key) => t.call('POST', `/v1/import/${batchId}/commit`, { key: k, body });

describe('POST /v1/import/{id}/commit', () => {
  it('stores ready and invalid rows as submissions, leaves the rest, and writes the attestation', async () => {
    const batchId = await stage(
      t,
      key,
      await xlsxFile({ Date: [HEADER_DIRECT, row(1), row(2), row(3, 'NECUNOSCUT'), ['SCURT', 'B4ABC', '14.03.2025', null, 5, null, null, 'OE-3'], row(1)] }),
    );
    const p = await preview(t, key, batchId);
    expect(p.counts).toMatchObject({ ok: 2, needs_mapping: 1, needs_data: 1, duplicate_in_file: 1 });
    const res = await commit(batchId, { n_confirmed: p.n_to_commit, rows_hash: p.rows_hash });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      status: 'committed',
      inserted: 3,
      by_status: { queued: 2, needs_data: 1 },
      not_committed: 2,
      attestation: { rows_hash: p.rows_hash, n_confirmed: 3, confirmed_by: expect.stringMatching(/^cheie_api:\d+$/) },
    });

    const stored = await t.ctx.sql<{ status: string; row_index: number; account_id: number; purge_after: string | null }[]>`
      SELECT status, row_index, account_id, purge_after FROM submissions WHERE batch_id = ${batchId} ORDER BY row_index`;
    expect(stored.map((s) => [s.row_index, s.status])).toEqual([
      [1, 'queued'],
      [2, 'queued'],
      [4, 'needs_data'],
    ]);
    expect(stored.every((s) => s.account_id === accountId)).toBe(true);
    expect(stored[0]!.purge_after).toBeNull();
    expect(stored[2]!.purge_after).not.toBeNull();
    const [attestation] = await t.ctx.sql`SELECT rows_hash, n_confirmed, confirmed_by, account_id FROM import_attestations WHERE batch_id = ${batchId}`;
    expect(attestation).toMatchObject({ rows_hash: p.rows_hash, n_confirmed: 3, account_id: accountId });
    const linked = await t.ctx.sql`SELECT row_index FROM import_rows WHERE batch_id = ${batchId} AND submission_id IS NOT NULL ORDER BY row_index`;
    expect(linked.map((r) => r.row_index)).toEqual([1, 2, 4]);
  });

  it('makes a file row and an API post of the same content one submission, in both orders', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, [VIN(20), 'B-20-ABC', '14.03.2025', null, '154200.0', null, null, 'oe-3']] }));
    const p = await preview(t, key, batchId);
    await commit(batchId, { n_confirmed: 1, rows_hash: p.rows_hash });
    const api = await json(
      await t.call('POST', '/v1/prezentari', {
        key,
        body: { vin: VIN(20), nrInm: 'B20ABC', dataPrestatie: '2025-03-14', odometruFinal: 154200, prestatii: [{ cod_prestatie: 'OE-3' }] },
      }),
    );
    const [fromFile] = await t.ctx.sql`SELECT id FROM submissions WHERE batch_id = ${batchId}`;
    expect(api).toMatchObject({ duplicate: true, submission_id: Number(fromFile!.id) });

    // API first, then the file: the row is already_sent and nothing new is stored.
    const first = await json(
      await t.call('POST', '/v1/prezentari', {
        key,
        body: { vin: VIN(21), nrInm: 'B21ABC', dataPrestatie: '2025-03-14', odometruFinal: 5000, prestatii: [{ cod_prestatie: 'OE-3' }] },
      }),
    );
    const again = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, [VIN(21), 'B21ABC', 45730, null, 5000.0, null, null, 'OE-3']] }));
    const p2 = await preview(t, key, again);
    expect(p2.rows[0]).toMatchObject({ state: 'already_sent', existing_submission: { id: first.submission_id } });
    expect(await json(await commit(again, { n_confirmed: 0, rows_hash: p2.rows_hash }))).toMatchObject({ inserted: 0 });
  });

  it('refuses a wrong n_confirmed or rows_hash with a 409 that says which, and writes nothing', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, row(30), row(31)] }));
    const p = await preview(t, key, batchId);
    const wrongN = await commit(batchId, { n_confirmed: 1, rows_hash: p.rows_hash });
    expect(wrongN.status).toBe(409);
    expect(await json(wrongN)).toMatchObject({ cod: 'IMPORT_CONFIRMARE_NUMAR', cauza: expect.stringContaining('2') });
    const wrongHash = await commit(batchId, { n_confirmed: 2, rows_hash: 'a'.repeat(64) });
    expect(await json(wrongHash)).toMatchObject({ status: 409, cod: 'IMPORT_CONFIRMARE_HASH' });
    const [{ n }] = (await t.ctx.sql`SELECT count(*)::int AS n FROM submissions WHERE batch_id = ${batchId}`) as unknown as [{ n: number }];
    expect(n).toBe(0);
  });

  it('refuses a confirmation of rows that changed after the preview (an edit)', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, row(40)] }));
    const p = await preview(t, key, batchId);
    await t.call('POST', `/v1/import/${batchId}/rand/1/editeaza`, { key, body: { odometruFinal: 123456 } });
    expect(await json(await commit(batchId, { n_confirmed: 1, rows_hash: p.rows_hash }))).toMatchObject({ cod: 'IMPORT_CONFIRMARE_HASH' });
    const fresh = await preview(t, key, batchId);
    expect((await commit(batchId, { n_confirmed: 1, rows_hash: fresh.rows_hash })).status).toBe(200);
    const [stored] = await t.ctx.sql`SELECT payload_json FROM submissions WHERE batch_id = ${batchId}`;
    expect((stored!.payload_json as { odometruFinal: number }).odometruFinal).toBe(123456);
  });

  it('refuses a second commit of the same batch', async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, row(50)] }));
    const p = await preview(t, key, batchId);
    expect((await commit(batchId, { n_confirmed: 1, rows_hash: p.rows_hash })).status).toBe(200);
    const again = await commit(batchId, { n_confirmed: 1, rows_hash: p.rows_hash });
    expect(again.status).toBe(409);
    expect(await json(again)).toMatchObject({ cod: 'IMPORT_DEJA_CONFIRMAT' });
  });

  it('commits a row held for review only after the user includes it', async () => {
    await t.call('POST', '/v1/prezentari', {
      key,
      body: { vin: VIN(60), nrInm: 'B60ABC', dataPrestatie: '2025-03-01', odometruFinal: 300000, prestatii: [{ cod_prestatie: 'OE-3' }] },
    });
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, row(60, 'OE-3', 1000)] }));
    const held = await preview(t, key, batchId);
    expect(held).toMatchObject({ counts: { needs_review: 1 }, n_to_commit: 0 });
    const include = await t.call('POST', `/v1/import/${batchId}/rand/1/revizuire`, { key, body: { include: true } });
    expect(await json(include)).toMatchObject({ row: { state: 'ok', review: { inclus: true, odometru: 300000 } }, n_to_commit: 1 });
    const p = await preview(t, key, batchId);
    expect(p.rows_hash).not.toBe(held.rows_hash);
    expect(await json(await commit(batchId, { n_confirmed: 1, rows_hash: p.rows_hash }))).toMatchObject({ inserted: 1, by_status: { queued: 1 } });
  });

  it("answers 422 for a body of the wrong shape, and 404 for another account's batch", async () => {
    const batchId = await stage(t, key, await xlsxFile({ Date: [HEADER_DIRECT, row(70)] }));
    const bad = await commit(batchId, { n_confirmed: '1', rows_hash: 'x' });
    expect(bad.status).toBe(422);
    expect((await json(bad)).detail).toHaveLength(2);
    const other = await t.createKey(await t.createAccount('Alt service'));
    const p = await preview(t, key, batchId);
    const theirs = await commit(batchId, { n_confirmed: 1, rows_hash: p.rows_hash }, other);
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).toBe(await (await commit(2_000_000, { n_confirmed: 1, rows_hash: p.rows_hash })).text());
  });
});

describe('GET /v1/import/{id}/export-failed', () => {
  it('lists the rows not committed with their reason, formulas neutralised', async () => {
    const batchId = await stage(
      t,
      key,
      await xlsxFile({ Date: [HEADER_DIRECT, row(80), [VIN(81), 'B81ABC', '14.03.2025', null, 5, '=HYPERLINK("http://x")', '+cmd', null], row(80)] }),
    );
    const before = await t.call('GET', `/v1/import/${batchId}/export-failed`, { key });
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toContain('text/csv');
    expect(before.headers.get('content-disposition')).toContain(`import-${batchId}-netrimise.csv`);
    const lines = readSemicolonCsv((await exportBytes(before)).text);
    expect(lines[0]).toEqual(['rand', 'foaie', 'linie', 'stare', 'motiv', ...HEADER_DIRECT]);
    expect(lines).toHaveLength(3);
    expect(lines[1]!.slice(0, 4)).toEqual(['2', 'Date', '3', 'needs_mapping']);
    expect(lines[1]).toContain(`'=HYPERLINK("http://x")`);
    expect(lines[1]).toContain("'+cmd");
    expect(lines[2]!.slice(0, 4)).toEqual(['3', 'Date', '4', 'duplicate_in_file']);
    expect(lines[2]![4]).toMatch(/^Identic cu rândul 1/);

    const p = await preview(t, key, batchId);
    await commit(batchId, { n_confirmed: p.n_to_commit, rows_hash: p.rows_hash });
    const after = readSemicolonCsv((await exportBytes(await t.call('GET', `/v1/import/${batchId}/export-failed`, { key }))).text);
    expect(after.slice(1).map((l) => l[0])).toEqual(['2', '3']);
  });
});
