import { describe, expect, it } from 'vitest';
import type { CanonicalContent } from '../../src/domain/canonical';
import { DEFAULT_PROTOCOL, protocolFrom } from '../../worker/registry/protocol';
import { buildRecord, RecordError, sameRecord, toWire } from '../../worker/registry/record';

const content: CanonicalContent = {
  vin: 'WDB1234561A654321',
  nrInm: 'B123ABC',
  dataPrestatie: '2025-03-14',
  odometruInitial: '1000',
  odometruFinal: 154200,
  prestatii: [
    { cod_op_service: 'SCH-ULEI', denumire: 'Schimb ulei' },
    { cod_prestatie: 'OE-3', denumire: '' },
  ],
  b64Image: 'aGk=',
};
const items = [
  { cod_prestatie: 'OE-2', denumire: 'ÎNTREȚINERE' },
  { cod_prestatie: 'OE-3', denumire: 'REVIZIE PERIODICĂ' },
];

describe('buildRecord', () => {
  it('uses the resolved codes, FINALIZATA, numeric odometers and no tipPrestatie', () => {
    const record = buildRecord(content, items, DEFAULT_PROTOCOL);
    expect(record).toEqual({
      vin: 'WDB1234561A654321',
      nrInmatriculare: 'B123ABC',
      dataPrestatie: '2025-03-14',
      odometruInitial: 1000,
      odometruFinal: 154200,
      obs: '',
      prestatii: [
        { codPrestatie: 'OE-2', numePrestatie: 'ÎNTREȚINERE', idPrezentare: null },
        { codPrestatie: 'OE-3', numePrestatie: 'REVIZIE PERIODICĂ', idPrezentare: null },
      ],
      sistemReparat: null,
      status: 'FINALIZATA',
      b64Image: 'aGk=',
    });
    expect(Object.keys(toWire(record, DEFAULT_PROTOCOL))).not.toContain('tipPrestatie');
  });

  it('refuses content that cannot be a registry record', () => {
    expect(() => buildRecord({ ...content, odometruFinal: null }, items, DEFAULT_PROTOCOL)).toThrow(RecordError);
    expect(() => buildRecord({ ...content, odometruFinal: 'abc' }, items, DEFAULT_PROTOCOL)).toThrow(RecordError);
    expect(() => buildRecord(content, [], DEFAULT_PROTOCOL)).toThrow(RecordError);
  });
});

describe('protocol configuration', () => {
  it('renames paths and fields through GATEWAY_REGISTRY_PROTOCOL, keeping the rest', () => {
    const p = protocolFrom(JSON.stringify({ paths: { send: '/v2/records' }, record: { nrInmatriculare: 'plate', codPrestatie: 'code' } }));
    expect(p.paths).toEqual({ ...DEFAULT_PROTOCOL.paths, send: '/v2/records' });
    const wire = toWire(buildRecord(content, items, p), p);
    expect(wire).toMatchObject({ plate: 'B123ABC', vin: 'WDB1234561A654321', status: 'FINALIZATA' });
    expect((wire.prestatii as Array<Record<string, unknown>>)[0]).toEqual({ code: 'OE-2', numePrestatie: 'ÎNTREȚINERE', idPrezentare: null });
  });

  it('refuses unknown sections and names, so a typo cannot silently fall back', () => {
    expect(() => protocolFrom(JSON.stringify({ pathz: {} }))).toThrow();
    expect(() => protocolFrom(JSON.stringify({ record: { numarInmatriculare: 'x' } }))).toThrow(/unknown names/);
    expect(protocolFrom(undefined)).toBe(DEFAULT_PROTOCOL);
  });
});

describe('sameRecord (reconciliation)', () => {
  const record = buildRecord(content, items, DEFAULT_PROTOCOL);
  const listed = { id: '9', vin: 'WDB1234561A654321', dataPrestatie: '2025-03-14', odometruFinal: 154200, codes: ['OE-3', 'OE-2'] };

  it('matches on VIN, date, final odometer and the set of codes, in any order', () => {
    expect(sameRecord(listed, record)).toBe(true);
    expect(sameRecord({ ...listed, codes: ['OE-2', 'OE-3', 'OE-3'] }, record)).toBe(true);
    expect(sameRecord({ ...listed, dataPrestatie: '2025-03-14T00:00:00' }, record)).toBe(true);
  });

  it('does not match when any of them differs', () => {
    expect(sameRecord({ ...listed, vin: 'WDB1234561A654322' }, record)).toBe(false);
    expect(sameRecord({ ...listed, dataPrestatie: '2025-03-15' }, record)).toBe(false);
    expect(sameRecord({ ...listed, odometruFinal: 154201 }, record)).toBe(false);
    expect(sameRecord({ ...listed, codes: ['OE-2'] }, record)).toBe(false);
    expect(sameRecord({ ...listed, codes: ['OE-2', 'OE-3', 'OE-4'] }, record)).toBe(false);
  });
});
