import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { createRowsHasher, highestReadingUpTo, rowState, type RowFacts } from '../../src/domain/import-state';
import { decodeCsv, detectDelimiter } from '../../src/readers/csv';

const facts = (over: Partial<RowFacts> = {}): RowFacts => ({
  verdict: 'queued',
  existing: null,
  duplicateOf: null,
  recorded: null,
  odometruFinal: 1000,
  includeReview: false,
  ...over,
});

describe('row state precedence', () => {
  it('already stored beats a repeat, which beats the content verdict', () => {
    expect(rowState(facts({ existing: { id: 1, status: 'sent' }, duplicateOf: 2, verdict: 'needs_data' })).state).toBe('already_sent');
    expect(rowState(facts({ duplicateOf: 2, verdict: 'needs_data' })).state).toBe('duplicate_in_file');
    expect(rowState(facts({ verdict: 'needs_data' })).state).toBe('needs_data');
    expect(rowState(facts({ verdict: 'needs_mapping' })).state).toBe('needs_mapping');
  });

  it('holds a lower odometer for review until the user includes it', () => {
    const recorded = { data: '2025-03-01', odometru: 2000 };
    expect(rowState(facts({ recorded }))).toEqual({ state: 'needs_review', review: { ...recorded, inclus: false } });
    expect(rowState(facts({ recorded, includeReview: true }))).toEqual({ state: 'ok', review: { ...recorded, inclus: true } });
    expect(rowState(facts({ recorded: { data: '2025-03-01', odometru: 500 } }))).toEqual({ state: 'ok', review: null });
  });

  it('compares with readings on or before the row date only', () => {
    const readings = [
      { data: '2025-01-01', odometru: 100 },
      { data: '2025-03-01', odometru: 900 },
      { data: '2025-02-01', odometru: 500 },
    ];
    expect(highestReadingUpTo(readings, '2025-02-15')).toEqual({ data: '2025-02-01', odometru: 500 });
    expect(highestReadingUpTo(readings, '2024-12-31')).toBeNull();
  });

  it('hashes what is shown: any state, content, resolution or visit change moves rows_hash', () => {
    type Visit = { head: number; lines: number } | null;
    const hash = (state: 'ok' | 'needs_review', key = 'k', codes = ['OE-3'], visit: Visit = { head: 1, lines: 1 }) => {
      const h = createRowsHasher();
      h.add({ rowIndex: 1, state, key, codes, visit });
      return h.digest();
    };
    expect(hash('ok')).toBe(hash('ok'));
    const grouped = [hash('ok', 'k', ['OE-3'], { head: 1, lines: 2 }), hash('ok', 'k', ['OE-3'], { head: 0, lines: 2 })];
    expect(new Set([hash('ok'), hash('needs_review'), hash('ok', 'k2'), hash('ok', 'k', ['OE-2']), ...grouped]).size).toBe(6);
    // A line alone (or left out) hashes as before visits were grouped: what an earlier release computes for it.
    const before = createHash('sha256').update('1\tok\tk\tOE-3\n').digest('hex');
    expect([hash('ok'), hash('ok', 'k', ['OE-3'], null)]).toEqual([before, before]);
  });
});

describe('csv encodings and separators', () => {
  it('reads UTF-8 with and without BOM, UTF-16 with BOM and Windows-1250', () => {
    expect(decodeCsv(Buffer.from('\ufeffșțăîâ', 'utf8'))).toEqual({ text: 'șțăîâ', encoding: 'utf-8' });
    expect(decodeCsv(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Operație', 'utf16le')]))).toEqual({ text: 'Operație', encoding: 'utf-16le' });
    expect(decodeCsv(Buffer.from([0x4f, 0x70, 0x65, 0x72, 0x61, 0xfe, 0x69, 0x65, 0x20, 0xba]))).toEqual({ text: 'Operaţie ş', encoding: 'windows-1250' });
  });

  it('refuses UTF-16 without BOM and bytes that are neither UTF-8 nor Windows-1250', () => {
    expect(() => decodeCsv(Buffer.from('VIN;Data', 'utf16le'))).toThrow(AppError);
    expect(() => decodeCsv(Buffer.from([0x41, 0x81, 0x42]))).toThrow(/Windows-1250/);
  });

  it('detects ; , and tab, ignoring separators inside quotes', () => {
    expect(detectDelimiter('VIN;Nr;"a,b,c,d"\n1;2;3')).toBe(';');
    expect(detectDelimiter('\n\nVIN,Nr,Data')).toBe(',');
    expect(detectDelimiter('VIN\tNr\tData')).toBe('\t');
  });
});
