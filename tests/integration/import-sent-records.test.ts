import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestApp, type TestApp } from '../helpers/app';
import { HEADER, xlsxFile } from '../helpers/import-files';
import { preview, serial, stage } from '../helpers/import-flow';

let t: TestApp;
let key: string;
let otherKey: string;

beforeAll(async () => {
  t = await startTestApp();
  key = await t.createKey(await t.createAccount());
  otherKey = await t.createKey(await t.createAccount('Altul'));
  for (const k of [key, otherKey]) expect((await t.call('POST', '/v1/mapari', { key: k, body: { cod_op_service: 'REV', cod_prestatie: 'OE-3' } })).status).toBe(200);
});
afterAll(() => t.close());

const VIN = (n: number) => `WDB1234561A65${String(5000 + n).padStart(4, '0')}`;

/** Stores a submission through the API with the registry's own code, and marks it sent. */
async function sentThroughApi(k: string, vin: string, markSent = true): Promise<number> {
  const body = await json(
    await t.call('POST', '/v1/prezentari', {
      key: k,
      body: { vin, nrInm: 'B1ABC', dataPrestatie: '2025-03-14', odometruInitial: 150000, odometruFinal: 154200, prestatii: [{ cod_prestatie: 'OE-3' }] },
    }),
  );
  const id = body.submission_id as number;
  if (markSent) await t.ctx.sql`UPDATE submissions SET status = 'sent', sent_at = now() WHERE id = ${id}`;
  return id;
}

/** The same service in a file, as the workshop's code REV (mapped to OE-3). */
const fileOf = (vin: string) => xlsxFile({ Date: [HEADER, [vin, 'B-1-ABC', serial('2025-03-14'), 150000, 154200, 'REV', 'Revizie']] });

describe('already_sent by the resolved record', () => {
  it('API first (OE-3), then the file with the mapped workshop code: already_sent, naming the submission', async () => {
    const id = await sentThroughApi(key, VIN(1));
    const p = await preview(t, key, await stage(t, key, await fileOf(VIN(1))));
    expect(p.counts).toMatchObject({ already_sent: 1, ok: 0 });
    expect(p.rows[0]).toMatchObject({ state: 'already_sent', existing_submission: { id, status: 'sent' } });
    expect(p.rows[0]!.motiv).toContain(`#${id}`);
  });

  it('file first, then the API one is sent: the next preview sees it', async () => {
    const batchId = await stage(t, key, await fileOf(VIN(2)));
    expect((await preview(t, key, batchId)).counts).toMatchObject({ ok: 1 });
    const id = await sentThroughApi(key, VIN(2));
    const p = await preview(t, key, batchId);
    expect(p.rows[0]).toMatchObject({ state: 'already_sent', existing_submission: { id } });
  });

  it('a submission queued but not yet sent matches too (issue 31: it will be sent); one with another odometer does not', async () => {
    const id = await sentThroughApi(key, VIN(3), false);
    const p = await preview(t, key, await stage(t, key, await fileOf(VIN(3))));
    expect(p.rows[0]).toMatchObject({ state: 'already_sent', existing_submission: { id, status: 'queued' } });
    const other = await preview(t, key, await stage(t, key, await xlsxFile({ Date: [HEADER, [VIN(3), 'B-1-ABC', serial('2025-03-14'), 150000, 154300, 'REV', 'Revizie']] })));
    expect(other.counts).toMatchObject({ ok: 1, already_sent: 0 });
  });

  it("another account's sent submission never matches", async () => {
    await sentThroughApi(otherKey, VIN(4));
    const p = await preview(t, key, await stage(t, key, await fileOf(VIN(4))));
    expect(p.counts).toMatchObject({ ok: 1, already_sent: 0 });
  });
});
