import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRowsHasher, emptyCounts, highestReadingUpTo, rowState, type OdometerReading, type VisitFacts } from '../../src/domain/import-state';
import { applyReadings, vinHasher } from '../../src/services/import/readings';
import { batchSummary, rowOutcomes } from '../../src/services/import/states';
import { startTestApp, type TestApp } from '../helpers/app';

// The preview's states are computed in SQL over the derived columns; the domain functions
// (rowState, the rows hasher, highestReadingUpTo) state the rules. Here both meet on many
// generated rows, so the SQL cannot drift from the rules.
let t: TestApp;
let accountId: number;
let otherAccount: number;

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  t = await startTestApp();
  accountId = await t.createAccount();
  otherAccount = await t.createAccount('Alt service');
});
afterAll(() => t.close());

async function newBatch(): Promise<number> {
  const [row] = await t.ctx.sql<{ id: number }[]>`INSERT INTO import_batches (account_id, header, header_signature) VALUES (${accountId}, '[]'::jsonb, 'x') RETURNING id`;
  return row!.id;
}

async function storeSubmission(account: number, key: string, extra: { vin?: string; data?: string; odometru?: number } = {}) {
  const [row] = await t.ctx.sql<{ id: string }[]>`
    INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key)
    VALUES (${account}, 'queued', ${JSON.stringify({ odometruFinal: extra.odometru ?? null })}::jsonb, ${extra.vin ?? 'V'}, 'N', ${extra.data ?? '2025-01-01'}, ${key}) RETURNING id`;
  return Number(row!.id);
}

describe('row states in SQL agree with the domain rules', () => {
  it('on 400 generated rows: states, review, repeats, stored keys, counts and rows_hash', async () => {
    const rnd = random(20250314);
    const pick = <T>(items: readonly T[]) => items[Math.floor(rnd() * items.length)]!;
    const batchId = await newBatch();
    const prefix = randomBytes(4).toString('hex');
    const key = (i: number) => `${prefix}-k${i}`;
    const legacy = (i: number) => `${prefix}-l${i}`;

    // Some keys already stored in the account (either form), one only in another account.
    const stored = new Map<string, { id: number; status: string }>();
    for (const k of [key(1), key(2), legacy(3), legacy(4)]) stored.set(k, { id: await storeSubmission(accountId, k), status: 'queued' });
    await storeSubmission(otherAccount, key(5));

    const rows = Array.from({ length: 400 }, (_, i) => {
      const k = Math.floor(rnd() * 60);
      const plateMissing = rnd() < 0.1;
      return {
        row_index: i + 1,
        // Lines of a few visits (same key), a few lines alone, some left out, an empty plate now and then.
        visit_key: rnd() < 0.2 ? null : `v${Math.floor(rnd() * 120)}`,
        plate_hmac: plateMissing ? null : pick(['P1', 'P1', 'P1', 'P1', 'P2']),
        plate_missing: plateMissing,
        left_out: rnd() < 0.05 ? 'Rând de total, nu o prestație.' : null,
        unmapped: rnd() < 0.2 ? [['X', 'x']] : null,
        verdict: plateMissing ? ('needs_data' as const) : pick(['queued', 'queued', 'queued', 'queued', 'queued', 'queued', 'needs_data', 'needs_mapping'] as const),
        idem_key: key(k),
        legacy_key: legacy(k),
        codes: pick(['OE-2', 'OE-2,OE-3', '']),
        odometru_final: rnd() < 0.1 ? null : Math.floor(rnd() * 1000),
        recorded_odometru: rnd() < 0.5 ? null : Math.floor(rnd() * 1000),
        recorded_data: '2025-03-01',
        include_review: rnd() < 0.3 ? 1 : 0,
      };
    });
    await t.ctx.sql`
      INSERT INTO import_rows (batch_id, row_index, raw_enc, verdict, idem_key, legacy_key, codes, odometru_final, recorded_odometru, recorded_data, include_review,
        visit_key, plate_hmac, plate_missing, left_out, unmapped)
      SELECT ${batchId}, row_index, 'x', verdict, idem_key, legacy_key, codes, odometru_final, recorded_odometru, recorded_data, include_review,
        visit_key, plate_hmac, plate_missing, left_out, unmapped
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(row_index int, verdict text, idem_key text, legacy_key text, codes text,
        odometru_final float8, recorded_odometru float8, recorded_data text, include_review int, visit_key text, plate_hmac text, plate_missing boolean,
        left_out text, unmapped jsonb)`;

    // The visits as the domain states them: a line's empty plate is given by another line of its visit.
    const visits = new Map<string, typeof rows>();
    for (const r of rows.filter((r) => r.left_out === null)) {
      const vk = r.visit_key ?? String(r.row_index);
      visits.set(vk, [...(visits.get(vk) ?? []), r]);
    }
    const visitOf = (r: (typeof rows)[number]): VisitFacts => {
      const lines = visits.get(r.visit_key ?? String(r.row_index)) ?? [r];
      const hasPlate = lines.some((l) => l.plate_hmac !== null);
      const lineVerdict = (l: (typeof rows)[number]) => (l.plate_missing && hasPlate ? (l.unmapped ? 'needs_mapping' : 'queued') : l.verdict);
      const verdicts = lines.map(lineVerdict);
      return {
        verdict: verdicts.includes('needs_data') ? 'needs_data' : verdicts.includes('needs_mapping') ? 'needs_mapping' : 'queued',
        disagrees: new Set(lines.flatMap((l) => (l.plate_hmac ? [l.plate_hmac] : []))).size > 1,
        existing: null,
      };
    };

    const first = new Map<string, number>();
    const counts = emptyCounts();
    const hasher = createRowsHasher();
    const expected = rows.map((r) => {
      const inFile = r.left_out === null;
      const duplicateOf = inFile ? (first.get(r.idem_key) ?? null) : null;
      if (inFile && duplicateOf === null) first.set(r.idem_key, r.row_index);
      const recorded: OdometerReading | null = r.recorded_odometru === null ? null : { data: r.recorded_data, odometru: r.recorded_odometru };
      const existing = stored.get(r.idem_key) ?? stored.get(r.legacy_key) ?? null;
      const visit = visitOf(r);
      const result = rowState({
        verdict: r.verdict,
        leftOut: r.left_out,
        visit,
        existing,
        duplicateOf,
        recorded,
        odometruFinal: r.odometru_final,
        includeReview: r.include_review !== 0,
      });
      counts[result.state] += 1;
      const lines = inFile ? visits.get(r.visit_key ?? String(r.row_index))! : null;
      const grouped = lines && { head: Math.min(...lines.map((l) => l.row_index)), lines: lines.length };
      hasher.add({ rowIndex: r.row_index, state: result.state, key: r.idem_key, codes: r.codes ? r.codes.split(',') : [], visit: grouped });
      return { rowIndex: r.row_index, state: result.state, review: result.review, duplicateOf, existing };
    });

    const summary = await batchSummary(t.ctx.db, accountId, batchId);
    expect(summary).toMatchObject({ total: 400, counts, rowsHash: hasher.digest() });
    const outcomes = await rowOutcomes(t.ctx.db, accountId, batchId, sql`true`);
    expect(outcomes.map(({ rowIndex, state, review, duplicateOf, existing }) => ({ rowIndex, state, review, duplicateOf, existing }))).toEqual(expected);
    // Every state occurs, so every branch of the rules was compared.
    expect(Object.values(counts).every((n) => n > 0)).toBe(true);
  });

  it("recorded readings: the highest on or before the row date, for the row's VIN only", async () => {
    const rnd = random(7);
    const batchId = await newBatch();
    const hmac = vinHasher(randomBytes(32));
    const vins = ['VIN-A', 'VIN-B', 'VIN-C'];
    const dates = ['2025-01-10', '2025-02-10', '2025-03-10', '2025-04-10'];
    const rows = Array.from({ length: 60 }, (_, i) => ({ row_index: i + 1, vin: vins[i % 3]!, data: dates[Math.floor(rnd() * 4)]! }));
    await t.ctx.sql`
      INSERT INTO import_rows (batch_id, row_index, raw_enc, vin_hmac, data_prestatie)
      SELECT ${batchId}, row_index, 'x', h, data FROM jsonb_to_recordset(${JSON.stringify(rows.map((r) => ({ ...r, h: hmac(r.vin) })))}::jsonb) AS v(row_index int, h text, data text)`;
    const readings = Array.from({ length: 20 }, () => ({ vin: vins[Math.floor(rnd() * 2)]!, data: dates[Math.floor(rnd() * 4)]!, odometru: Math.floor(rnd() * 100_000) }));
    // Applied in two rounds (as at upload, then at a later preview): the same as all at once.
    await applyReadings(t.ctx.db, hmac, batchId, readings.slice(0, 10));
    await applyReadings(t.ctx.db, hmac, batchId, readings.slice(10));
    const got = await t.ctx.sql<{ row_index: number; recorded_odometru: number | null }[]>`
      SELECT row_index, recorded_odometru FROM import_rows WHERE batch_id = ${batchId} ORDER BY row_index`;
    const expected = rows.map(
      (r) =>
        highestReadingUpTo(
          readings.filter((x) => x.vin === r.vin),
          r.data,
        )?.odometru ?? null,
    );
    expect(got.map((g) => g.recorded_odometru)).toEqual(expected);
    expect(expected.some((x) => x !== null) && expected.some((x) => x === null)).toBe(true);
  });
});
