import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FALLBACK_NOMENCLATOR } from '../../db/fallback-nomenclator';
import { suggestMapping } from '../../src/domain/import-header';
import { createChunkStager, type ChunkContext, type ChunkRow } from '../../src/services/import/chunk-stager';
import { startChunkThread, type ChunkThread } from '../../src/services/import/chunk-thread';

// The chunk thread stages a background import's chunks beside the event loop: what it gives
// back must be what the event loop would have staged, and a thread that cannot run must leave
// every chunk to the event loop.

const HEADER = ['VIN', 'Nr. înmatriculare', 'Data', 'Km intrare', 'Km ieșire', 'Cod operație', 'Denumire operație'];
const context: ChunkContext = {
  batchId: 7,
  purgeAfter: '2025-06-12T10:00:00.000Z',
  setting: { accountId: 3, mapping: suggestMapping(HEADER), date1904: false },
  resolution: {
    nomenclator: new Map(FALLBACK_NOMENCLATOR.map((n) => [n.cod, n.denumire])),
    mappings: new Map([['SCH-ULEI', 'OE-2']]),
    textRules: [{ id: 1, pattern: 'filtru', cod_prestatie: 'OE-3', priority: 1 }],
  },
  now: new Date('2025-03-20T12:00:00Z'),
  vinKey: randomBytes(32),
};
// Every verdict: ready, resolved by a text rule, unmapped, invalid (date), without a VIN; a second sheet.
const rows: ChunkRow[] = [
  [1, 'Martie', ['WDB1234561A100001', 'B1ABC', '14.03.2025', 1000, 1100.5, 'SCH-ULEI; OE-3', 'Schimb ulei; Revizie']],
  [2, 'Martie', ['WDB1234561A100002', 'B2ABC', '15.03.2025', null, 2000, 'X-1', 'Înlocuire filtru aer']],
  [3, 'Martie', ['WDB1234561A100003', 'B3ABC', '16.03.2025', null, 3000, 'NECUNOSCUT', 'Ceva']],
  [4, 'Martie', ['WDB1234561A100004', 'B4ABC', 'nu e dată', null, 4000, 'OE-1', '']],
  [5, 'Aprilie\\t2', [null, 'B5ABC', '17.03.2025', null, 5000, 'OE-1', 'Reparație']],
];

async function loaded(thread: ChunkThread): Promise<void> {
  for (let i = 0; !thread.free; i++) {
    expect(thread.report().failure).toBeNull();
    if (i > 600) throw new Error('the chunk thread did not load in 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the chunk thread', () => {
  it('stages a chunk as the event loop does: the same COPY lines and VINs', async () => {
    const stageHere = createChunkStager(context);
    const thread = startChunkThread(context, stageHere);
    try {
      await loaded(thread);
      const here = stageHere(rows);
      expect(here.copy.split('\n')).toHaveLength(rows.length + 1);
      expect(here.vins).toEqual(['WDB1234561A100001', 'WDB1234561A100002', 'WDB1234561A100003', 'WDB1234561A100004']);
      expect(await thread.stage(rows)).toEqual(here);
      expect(thread.report()).toEqual({ rows: rows.length, failure: null });
    } finally {
      await thread.close();
    }
  });

  it('that cannot run takes no chunk, and says why', async () => {
    const broken = { ...context, vinKey: null as unknown as Uint8Array };
    const thread = startChunkThread(broken, createChunkStager(context));
    try {
      for (let i = 0; thread.report().failure === null; i++) {
        if (i > 600) throw new Error('the broken chunk thread did not fail in 30 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(thread.free).toBe(false);
      expect(thread.report()).toMatchObject({ rows: 0, failure: expect.stringContaining('key') });
    } finally {
      await thread.close();
    }
  });
});
