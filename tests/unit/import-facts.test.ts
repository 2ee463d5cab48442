import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/domain/canonical';
import { idempotencyKey, idempotencyKeys, legacyIdempotencyKey } from '../../src/domain/idempotency';
import { readFingerprint, staleScope, type Fingerprint } from '../../src/services/import/fingerprint';

describe('idempotencyKeys (both forms from one serialisation)', () => {
  it('gives exactly the keys of the API functions', () => {
    const content = canonicalize({
      vin: 'wdb1234561a000001',
      nrInm: 'B1ABC',
      dataPrestatie: '2025-03-14',
      odometruFinal: '154200.0',
      prestatii: [
        { cod_op_service: 'b', denumire: 'Revizie' },
        { cod_prestatie: 'OE-3', denumire: 'x' },
      ],
    });
    for (const account of [null, 1, 42]) {
      expect(idempotencyKeys(account, content)).toEqual({ key: idempotencyKey(account, content), legacyKey: legacyIdempotencyKey(content) });
    }
  });

  it('the same keys for a content with a large photo and non-ASCII names (hashed from its bytes)', () => {
    const content = canonicalize({
      vin: 'WDB1234561A000001',
      nrInm: 'B1ABC',
      dataPrestatie: '2025-03-14',
      odometruFinal: 154200,
      prestatii: [{ cod_op_service: 'Ș1', denumire: 'Revizie periodică ț' }],
      b64Image: 'QUJD'.repeat(100_000),
    });
    for (const account of [null, 7]) {
      expect(idempotencyKeys(account, content)).toEqual({ key: idempotencyKey(account, content), legacyKey: legacyIdempotencyKey(content) });
    }
  });
});

describe('staleScope: which derived rows a change reaches', () => {
  const fp: Fingerprint = {
    columns: 'c',
    nomenclator: 'n',
    mappings: [
      ['A', 'OE-2'],
      ['B', 'OE-3'],
    ],
    textRules: 'r',
    today: '2025-03-20',
    seen: 5,
  };
  it('nothing when only the readings watermark moved', () => {
    expect(staleScope(fp, { ...fp, seen: 9 })).toEqual({ kind: 'none' });
  });
  it('every row for a new column mapping, a new nomenclator, or no fingerprint', () => {
    expect(staleScope(fp, { ...fp, columns: 'x' })).toEqual({ kind: 'all' });
    expect(staleScope(fp, { ...fp, nomenclator: 'x' })).toEqual({ kind: 'all' });
    expect(staleScope(null, fp)).toEqual({ kind: 'all' });
  });
  it('the rows with a code whose mapping was added, removed or changed; those left to the text rules', () => {
    expect(
      staleScope(fp, {
        ...fp,
        mappings: [
          ['B', 'OE-2'],
          ['C', 'OE-3'],
        ],
      }),
    ).toEqual({ kind: 'some', codes: ['A', 'B', 'C'], textRules: false, datedAfter: null });
    expect(staleScope(fp, { ...fp, textRules: 'x' })).toEqual({ kind: 'some', codes: [], textRules: true, datedAfter: null });
  });
  it('the rows dated after the earlier day for a new day (the clock may also go back)', () => {
    expect(staleScope(fp, { ...fp, today: '2025-03-22' })).toEqual({ kind: 'some', codes: [], textRules: false, datedAfter: '2025-03-20' });
    expect(staleScope(fp, { ...fp, today: '2025-03-18' })).toEqual({ kind: 'some', codes: [], textRules: false, datedAfter: '2025-03-18' });
  });
  it('reads an unreadable fingerprint as none', () => {
    expect(readFingerprint({ columns: 'c', rules: 'old form' })).toBeNull();
    expect(readFingerprint(JSON.parse(JSON.stringify(fp)))).toEqual(fp);
  });
});
