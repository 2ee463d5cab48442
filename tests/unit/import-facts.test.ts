import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/domain/canonical';
import { idempotencyKey, idempotencyKeys, legacyIdempotencyKey } from '../../src/domain/idempotency';
import { staleScope, type Fingerprint } from '../../src/services/import/fingerprint';

describe('idempotencyKeys (both forms from one serialisation)', () => {
  it('gives exactly the keys of the API functions', () => {
    const content = canonicalize({ vin: 'wdb1234561a000001', nrInm: 'B1ABC', dataPrestatie: '2025-03-14', odometruFinal: '154200.0', prestatii: [{ cod_op_service: 'b', denumire: 'Revizie' }, { cod_prestatie: 'OE-3', denumire: 'x' }] });
    for (const account of [null, 1, 42]) {
      expect(idempotencyKeys(account, content)).toEqual({ key: idempotencyKey(account, content), legacyKey: legacyIdempotencyKey(content) });
    }
  });
});

describe('staleScope: which derived rows a change reaches', () => {
  const fp: Fingerprint = { columns: 'c', nomenclator: 'n', rules: 'r', today: '2025-03-20', seen: 5 };
  it('nothing when only the readings watermark moved', () => {
    expect(staleScope(fp, { ...fp, seen: 9 })).toEqual({ kind: 'none' });
  });
  it('every row for a new column mapping, a new nomenclator, or no fingerprint', () => {
    expect(staleScope(fp, { ...fp, columns: 'x' })).toEqual({ kind: 'all' });
    expect(staleScope(fp, { ...fp, nomenclator: 'x' })).toEqual({ kind: 'all' });
    expect(staleScope(null, fp)).toEqual({ kind: 'all' });
  });
  it('the volatile rows for new mappings or text rules; the rows dated after the earlier day for a new day', () => {
    expect(staleScope(fp, { ...fp, rules: 'x' })).toEqual({ kind: 'some', volatile: true, datedAfter: null });
    expect(staleScope(fp, { ...fp, today: '2025-03-22' })).toEqual({ kind: 'some', volatile: false, datedAfter: '2025-03-20' });
    expect(staleScope(fp, { ...fp, today: '2025-03-18' })).toEqual({ kind: 'some', volatile: false, datedAfter: '2025-03-18' });
  });
});
