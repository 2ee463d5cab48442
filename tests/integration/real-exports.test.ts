import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Expected, ExpectedRecord } from '../fixtures/exports/corpus';
import { json, type TestApp } from '../helpers/app';
import { upload } from '../helpers/import-files';
import { type Preview, preview, settled } from '../helpers/import-flow';
import { startWorkerHarness, waitFor, type WorkerHarness } from '../helpers/worker';
import { apiOverHarness } from '../helpers/worker-api';

// Issue 31: real workshop exports, as their programs write them (tests/fixtures/exports, see
// its README), each with the records it means written beside it. Each goes through what a
// clerk does: upload, map its codes, commit without touching a cell, then a worker sends what
// was committed to the simulated registry, which must have received exactly those records:
// one per visit, every field as the file meant, no duplicate, nothing else. The same file
// uploaded again sends nothing.

const DIR = join(import.meta.dirname, '../fixtures/exports');
const CORPUS = readdirSync(DIR)
  .filter((name) => /\.(xlsx|csv)$/.test(name))
  .sort()
  .map((name) => ({ name, bytes: readFileSync(join(DIR, name)), expected: JSON.parse(readFileSync(join(DIR, `${name}.expected.json`), 'utf8')) as Expected }));

// States a commit stores (the rest are left out of it).
const COMMITTED = ['ok', 'needs_data'];

let h: WorkerHarness;
let t: TestApp;
const accounts = new Map<string, { id: number; key: string }>();

beforeAll(async () => {
  h = await startWorkerHarness();
  t = await apiOverHarness(h);
  await h.start();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await h?.close();
});

async function accountFor(expected: Expected) {
  let account = accounts.get(expected.account);
  if (!account) {
    const id = await t.createAccount(`Service ${expected.account}`);
    account = { id, key: await t.createKey(id) };
    accounts.set(expected.account, account);
  }
  return account;
}

async function uploaded(key: string, name: string, bytes: Buffer) {
  const res = await upload(t, key, bytes, name);
  const body = await json(res);
  expect(res.status, JSON.stringify(body)).toBe(201);
  const batchId = body.batch_id as number;
  expect((await settled(t, key, batchId)).status).toBe('staged');
  return { batchId, body };
}

const fullPreview = (key: string, batchId: number) => preview(t, key, batchId, '?page_size=1000');

async function commit(key: string, batchId: number, p: Preview) {
  const res = await t.call('POST', `/v1/import/${batchId}/commit`, { key, body: { n_confirmed: p.n_to_commit, rows_hash: p.rows_hash } });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
  return json(res);
}

/** Waits until the worker has nothing of the account left to send. */
async function drained(accountId: number) {
  await waitFor(
    async () => {
      const [row] = await h.app.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM submissions WHERE account_id = ${accountId} AND status IN ('queued', 'sending')`;
      return row!.n === 0;
    },
    30_000,
    `account ${accountId}'s submissions to leave the queue`,
  );
}

/** A record as the registry received it, in the shape the corpus writes (codes sorted, repeats kept). */
function received(from: number): ExpectedRecord[] {
  return h.sim.state.records.slice(from).map(({ record: r }) => ({
    vin: r.vin,
    nrInmatriculare: r.nrInmatriculare,
    dataPrestatie: r.dataPrestatie,
    odometruFinal: r.odometruFinal,
    odometruInitial: r.odometruInitial,
    codes: r.prestatii.map((p) => p.codPrestatie).sort(),
  }));
}

const bySerialised = (records: ExpectedRecord[]) => records.map((r) => JSON.stringify(r)).sort();

/** How a preview row is shown in a failure: where it is, its state and what it read. */
const shown = (row: Preview['rows'][number]) => `${row.sheet}:${row.line} ${row.state} ${JSON.stringify(row.values)} ${row.prestatii.map((p) => p.cod_prestatie).join(',')}`;

describe.each(CORPUS)('$name', ({ name, bytes, expected }) => {
  let account: { id: number; key: string };
  let batchId: number;
  let before: Preview;
  let p: Preview;
  const at = (sheet: string, line: number) => p.rows.find((r) => r.sheet === sheet && r.line === line);
  const heldOrLeftOut = new Set([...expected.held, ...expected.left_out].map((r) => `${r.sheet}:${r.line}`));

  it('reads every line of a visit as the file means it, once its codes are mapped', async () => {
    account = await accountFor(expected);
    const { key } = account;
    const staged = await uploaded(key, name, bytes);
    batchId = staged.batchId;
    if (expected.kind === 'csv') expect((staged.body.file as { encoding: string }).encoding).toBe(expected.encoding === 'windows-1250' ? 'windows-1250' : 'utf-8');
    // Where the corpus says the header is and how many rows sit under it, as the reader finds them.
    const sheets = staged.body.sheets as Array<{ name: string; staged: boolean; header_line: number; rows: number }>;
    expect(sheets.filter((s) => s.staged).map(({ name, header_line, rows }) => ({ name, header_line, data_rows: rows }))).toEqual(expected.sheets);
    expect(sheets.filter((s) => !s.staged).map((s) => s.name)).toEqual(expected.sheets_not_imported.map((s) => s.name));

    before = await fullPreview(key, batchId);
    for (const [code, registry] of Object.entries(expected.mappings)) {
      const res = await t.call('POST', '/v1/mapari', { key, body: { cod_op_service: code, cod_prestatie: registry } });
      expect(res.status, `${code} → ${registry}: ${await res.clone().text()}`).toBe(200);
    }
    // The column mapping is saved only where the suggestion is wrong (the corpus says why).
    const suggested = await json(await t.call('GET', `/v1/import/${batchId}/column-mapping`, { key }));
    if (expected.column_mapping) {
      expect(suggested.column_mapping).not.toEqual(expected.column_mapping.mapping);
      const res = await t.call('POST', `/v1/import/${batchId}/column-mapping`, { key, body: { column_mapping: expected.column_mapping.mapping } });
      expect(res.status, await res.clone().text()).toBe(200);
    } else {
      expect(suggested.missing_fields).toEqual([]);
    }
    p = await fullPreview(key, batchId);

    expect.soft(p.rows.filter((r) => r.state === 'needs_mapping' || r.state === 'needs_review').map(shown), 'rows the clerk would have to touch').toEqual([]);
    for (const row of expected.held) expect.soft(at(row.sheet, row.line)?.state, `${row.sheet}:${row.line} held (${row.why})`).toBe('needs_data');
    // Every other line belongs to a visit the file means: its VIN, date and readings, its plate or none.
    const visits = [...expected.records, ...expected.already_sent];
    const misread = p.rows
      .filter((r) => !heldOrLeftOut.has(`${r.sheet}:${r.line}`))
      .filter((r) => {
        const v = r.values as { vin: string; nrInm: string; dataPrestatie: string; odometruFinal: unknown; odometruInitial: unknown };
        const visit = visits.find((e) => e.vin === v.vin && e.dataPrestatie === v.dataPrestatie && e.odometruFinal === v.odometruFinal);
        return !visit || visit.odometruInitial !== v.odometruInitial || ![visit.nrInmatriculare, ''].includes(v.nrInm) || r.state === 'needs_data';
      });
    expect
      .soft(
        misread.map((r) => `${shown(r)} ${r.erori.map((e) => e.cod).join(',')}`),
        'lines not read as a visit of the file',
      )
      .toEqual([]);
  });

  it('leaves out the rows that are not services (totals, notes, headers again, rows without a vehicle)', () => {
    expect(p, 'the file was read').toBeDefined();
    for (const row of expected.left_out) {
      const r = at(row.sheet, row.line);
      expect.soft(r && COMMITTED.includes(r.state) ? shown(r) : null, `${row.sheet}:${row.line} left out (${row.why})`).toBeNull();
    }
    // Their text is no operation: the clerk is asked to map only the workshop's codes.
    expect
      .soft(
        before.operations_to_map.map((op) => op.cod_op_service).filter((code) => !(code in expected.mappings)),
        'operations to map',
      )
      .toEqual([]);
  });

  it('commit: the registry receives one record per visit, every field as the file means it, no duplicate, nothing else', async () => {
    expect(p, 'the file was read').toBeDefined();
    const from = h.sim.state.records.length;
    await commit(account.key, batchId, p);
    await drained(account.id);
    expect(bySerialised(received(from)), 'what the registry received').toEqual(bySerialised(expected.records));

    const stored = await h.app.sql<{ status: string; n: number }[]>`
      SELECT status, count(*)::int AS n FROM submissions WHERE batch_id = ${batchId} GROUP BY status ORDER BY status`;
    const want = [
      ...(expected.held.length ? [{ status: 'needs_data', n: expected.held.length }] : []),
      ...(expected.records.length ? [{ status: 'sent', n: expected.records.length }] : []),
    ];
    expect(stored, 'submissions stored for the batch').toEqual(want);
    const after = await fullPreview(account.key, batchId);
    for (const row of expected.left_out) {
      expect(after.rows.find((r) => r.sheet === row.sheet && r.line === row.line)?.submission_id ?? null, `${row.sheet}:${row.line} (${row.why}) stored`).toBeNull();
    }
  });

  it('the same file uploaded again sends nothing', async () => {
    expect(account, 'the first upload ran').toBeDefined();
    const { key } = account;
    const again = await uploaded(key, name, bytes);
    const q = await fullPreview(key, again.batchId);
    expect
      .soft(
        q.n_to_commit,
        `rows to commit again: ${q.rows
          .filter((r) => COMMITTED.includes(r.state))
          .map(shown)
          .join(' | ')}`,
      )
      .toBe(0);

    // Committed anyway, as a clerk would confirm what the screen shows: nothing new reaches the registry.
    const from = h.sim.state.records.length;
    await commit(key, again.batchId, q);
    await drained(account.id);
    expect(received(from), 'sent again').toEqual([]);
  });
});
