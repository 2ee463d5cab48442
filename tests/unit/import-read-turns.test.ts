import { describe, expect, it } from 'vitest';
import type { Keyring } from '../../src/crypto/envelope';
import { suggestMapping } from '../../src/domain/import-header';
import type { ResolutionContext } from '../../src/domain/resolve';
import type { LoadedBatch } from '../../src/services/import/batch';
import { readRow, readRows, type StagedRow } from '../../src/services/import/rows';

const header = ['VIN', 'Nr. înmatriculare', 'Data', 'Km', 'Cod operație'];
const batch = {
  id: 1,
  accountId: 1,
  header,
  mappingState: { mapping: suggestMapping(header), source: 'suggested', drift: null },
  fileMeta: { date1904: false },
} as unknown as LoadedBatch;
const resolution: ResolutionContext = { nomenclator: new Map([['OE-1', 'Revizie']]), mappings: new Map(), textRules: [] };
const now = new Date('2026-11-27T10:00:00Z');
// Rows without an override never open anything sealed.
const keyring = {} as Keyring;

const staged: StagedRow[] = Array.from({ length: 6 }, (_, i) => ({
  row_index: i + 1,
  sheet: null,
  raw: { line: i + 2, cells: [`WDB1234561A10000${i}`, 'B123ABC', '2026-11-02', 87_400 + i, 'OE-1'] },
  override_json: null,
  include_review: 0,
  submission_id: null,
}));

describe('readRows', () => {
  it('reads each row as readRow does, in order', async () => {
    const readings = await readRows(staged, batch, resolution, now, keyring);
    expect(readings).toEqual(staged.map((row) => readRow(row, batch, resolution, now, keyring)));
    expect(readings.map((r) => r.verdict.content.vin)).toEqual(staged.map((row) => row.raw.cells[0]));
  });

  it('gives the event loop a turn once its turn has lasted longer than its bound, and not before', async () => {
    // Each row takes 1.5 ms by this clock: past the 2 ms bound after the second.
    let ms = 0;
    const order: string[] = [];
    setImmediate(() => order.push('another request'));
    await readRows(staged, batch, resolution, now, keyring, () => (ms += 1.5)).then(() => order.push('rows read'));
    expect(order).toEqual(['another request', 'rows read']);

    // A clock that never moves: every row in one turn.
    const still: string[] = [];
    setImmediate(() => still.push('another request'));
    await readRows(staged, batch, resolution, now, keyring, () => 0).then(() => still.push('rows read'));
    expect(still).toEqual(['rows read']);
  });
});
