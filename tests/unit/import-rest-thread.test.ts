import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { inflateRawSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { FALLBACK_NOMENCLATOR } from '../../db/fallback-nomenclator';
import { AppError } from '../../src/errors';
import { suggestMapping } from '../../src/domain/import-header';
import { openSpreadsheet } from '../../src/import/open';
import { createChunkStager, type ChunkContext, type ChunkRow } from '../../src/services/import/chunk-stager';
import { importLimits } from '../../src/services/import/limits';
import { ROWS_PER_BLOCK } from '../../src/services/import/raw-blocks';
import { stageInThread, stagingThreads, type RestInput, type StagedRows } from '../../src/services/import/rest-thread';
import { walkFile } from '../../src/services/import/sheet-walk';
import { csvFile } from '../helpers/import-files';
import { schedulingPolicy } from '../helpers/proc';

// The rest thread stages an upload past the rows the event loop staged: what it sends must be
// what the event loop would have staged for those rows, and its errors must reach the staging
// as the event loop's would.

const HEADER = ['VIN', 'Nr. înmatriculare', 'Data', 'Km intrare', 'Km ieșire', 'Cod operație', 'Denumire operație'];
const context: ChunkContext = {
  batchId: 7,
  purgeAfter: '2025-06-12T10:00:00.000Z',
  setting: { accountId: 3, mapping: suggestMapping(HEADER), date1904: false, header: HEADER },
  resolution: {
    nomenclator: new Map(FALLBACK_NOMENCLATOR.map((n) => [n.cod, n.denumire])),
    mappings: new Map([['SCH-ULEI', 'OE-2']]),
    textRules: [{ id: 1, pattern: 'filtru', cod_prestatie: 'OE-3', priority: 1 }],
  },
  now: new Date('2025-03-20T12:00:00Z'),
  vinKey: randomBytes(32),
};
// Every verdict in turn: ready, resolved by a text rule, unmapped, invalid (date), without a VIN.
const row = (i: number) =>
  [
    [`WDB1234561A${String(100_000 + i)}`, 'B1ABC', '14.03.2025', 1000, 1100.5, 'SCH-ULEI; OE-3', 'Schimb ulei; Revizie'],
    [`WDB1234561A${String(100_000 + i)}`, 'B2ABC', '15.03.2025', null, 2000, 'X-1', 'Înlocuire filtru aer'],
    [`WDB1234561A${String(100_000 + i)}`, 'B3ABC', '16.03.2025', null, 3000, 'NECUNOSCUT', 'Ceva'],
    [`WDB1234561A${String(100_000 + i)}`, 'B4ABC', 'nu e dată', null, 4000, 'OE-1', ''],
    [null, 'B5ABC', '17.03.2025', null, 5000, 'OE-1', 'Reparație'],
  ][i % 5]!;
const ROWS = 1_500;
const file = csvFile([['Raport service'], HEADER, ...Array.from({ length: ROWS }, (_, i) => row(i))]);
const limits = importLimits({ GATEWAY_IMPORT_MAX_ROWS: 100_000, GATEWAY_IMPORT_MAX_UNCOMPRESSED_BYTES: 50_000_000 });
const input = (over: Partial<RestInput> = {}): RestInput => ({ bytes: file, chosen: [], limits, skip: 600, maxRows: 100_000, context, ...over });

/** What the event loop stages for the same file: every row's COPY line and VIN, the walk's summaries. */
async function stagedHere() {
  const walk = walkFile(await openSpreadsheet(file, limits), []);
  const rows: ChunkRow[] = [];
  for (let next = await walk.next(); !next.done; next = await walk.next()) rows.push([rows.length + 1, 'csv', next.value.cells]);
  return { ...createChunkStager(context)(rows), summaries: walk.summaries };
}

describe('the rest thread', () => {
  it('stages the rows past `skip` as the event loop does, and packs the blocks from the one they end in', async () => {
    const sent: StagedRows[] = [];
    const done = await stageInThread(
      input(),
      async (rows) => {
        sent.push(rows);
      },
      undefined,
      () => new Error('aborted'),
    );
    const here = await stagedHere();
    expect(done).toMatchObject({ kind: 'done', staged: ROWS, summaries: here.summaries });
    expect(sent.map((s) => s.copy).join('')).toBe(here.copy.split('\n').slice(600).join('\n'));
    expect(sent.flatMap((s) => s.vins)).toEqual(here.vins.slice(480));
    expect(sent.at(-1)!.staged).toBe(ROWS);
    // Rows 513-1500: block 2 (rows 513-768) on; the last one partial.
    const blocks = sent.flatMap((s) => s.blocks);
    expect(blocks.map((b) => b.no)).toEqual([2, 3, 4, 5]);
    const last = JSON.parse(inflateRawSync(blocks[3]!.deflated).toString()) as Array<{ l: number; c: unknown[] }>;
    expect(last).toHaveLength(ROWS - 5 * ROWS_PER_BLOCK);
    expect(last.at(-1)).toEqual({ l: ROWS + 2, c: row(ROWS - 1).map((c) => (c === null ? null : String(c))) });
  });

  it('pipelines reading and classifying while the threads fit the cores, and stages alike either way', async () => {
    expect([stagingThreads(0, 2), stagingThreads(2, 2), stagingThreads(1, 2), stagingThreads(2, 4), stagingThreads(0, 1)]).toEqual([2, 1, 1, 2, 1]);
    // Three at once: on two cores the first reads and classifies in two threads, the others in one.
    const staged = async () => {
      const sent: StagedRows[] = [];
      await stageInThread(
        input(),
        async (rows) => void sent.push(rows),
        undefined,
        () => new Error('aborted'),
      );
      return sent.map((s) => s.copy).join('');
    };
    const here = (await stagedHere()).copy.split('\n').slice(600).join('\n');
    expect(await Promise.all([staged(), staged(), staged()])).toEqual([here, here, here]);
  });

  it('fails with the staging error the event loop would give, and sends nothing past it', async () => {
    const sent: number[] = [];
    const failure = await stageInThread(
      input({ maxRows: 1_200 }),
      async (rows) => {
        sent.push(rows.staged);
      },
      undefined,
      () => new Error('aborted'),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ cod: 'IMPORT_PREA_MULTE_RANDURI', cauza: 'Fișierul are peste 1200 rânduri de date (limita).' });
    expect(Math.max(...sent)).toBeLessThanOrEqual(1_200);
  });

  it('its threads run under SCHED_IDLE (Linux: only when no other task wants the core); the event loop does not', async () => {
    // A thread's scheduling policy (5: SCHED_IDLE).
    const policy = (tid: string) => schedulingPolicy(`/proc/self/task/${tid}/stat`);
    const idle = () =>
      readdirSync('/proc/self/task').filter((tid) => {
        try {
          return policy(tid) === 5;
        } catch {
          return false; // a thread that just ended
        }
      }).length;
    const expected = stagingThreads(0, availableParallelism());
    let seen = 0;
    await stageInThread(
      input({ skip: 0 }),
      async () => {
        if (seen >= expected) return;
        await vi.waitFor(
          () => {
            seen = idle();
            expect(seen).toBeGreaterThanOrEqual(expected);
          },
          { timeout: 5_000 },
        );
      },
      undefined,
      () => new Error('aborted'),
    );
    expect(seen).toBeGreaterThanOrEqual(expected);
    expect(policy(String(process.pid))).toBe(0);
  });

  it("stops when the staging is aborted, with the caller's error, while a write waits for Postgres, and leaves no thread behind", async () => {
    // The threads of this process (Linux): the rest thread and its classifier must both end.
    const threads = () => readdirSync('/proc/self/task').length;
    // The threads of the tests above end asynchronously.
    await new Promise((r) => setTimeout(r, 500));
    const before = threads();
    let during = 0;
    const abort = new AbortController();
    let writes = 0;
    const failure = stageInThread(
      input({ skip: 0 }),
      async () => {
        writes += 1;
        during = threads();
        abort.abort();
        await new Promise(() => {}); // Postgres never catches up
      },
      abort.signal,
      () => new Error('the server is stopping'),
    );
    await expect(failure).rejects.toThrow('the server is stopping');
    expect(writes).toBe(1);
    expect(during, 'the rest thread and its classifier').toBeGreaterThanOrEqual(before + 2);
    await vi.waitFor(() => expect(threads()).toBeLessThanOrEqual(before), { timeout: 5_000 });
  });
});
