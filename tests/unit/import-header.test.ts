import { describe, expect, it } from 'vitest';
import { carryOverMapping, classifyLeadingRow, headerDrift, headerSignature, suggestMapping } from '../../src/domain/import-header';

describe('suggested column mapping', () => {
  it('reads Romanian headers with or without diacritics', () => {
    expect(suggestMapping(['Serie șasiu (VIN)', 'Nr. înmatriculare', 'Data prestației', 'Km intrare', 'Km ieșire', 'Cod operație', 'Denumire operație', 'Cod prestație'])).toEqual({
      vin: 0,
      nrInm: 1,
      dataPrestatie: 2,
      odometruInitial: 3,
      odometruFinal: 4,
      cod_op_service: 5,
      denumire_op: 6,
      cod_prestatie: 7,
    });
    expect(suggestMapping(['VIN', 'Numar inmatriculare', 'Data', 'Kilometraj', 'Operatie'])).toEqual({ vin: 0, nrInm: 1, dataPrestatie: 2, odometruFinal: 3, denumire_op: 4 });
    expect(suggestMapping(['vin', 'nrInm', 'dataPrestatie', 'odometruFinal', 'cod_op_service'])).toMatchObject({ nrInm: 1, dataPrestatie: 2, odometruFinal: 3, cod_op_service: 4 });
  });

  it('suggests nothing for names it does not know, and each column once', () => {
    expect(suggestMapping(['Client', 'Telefon', 'Observații'])).toEqual({});
    expect(suggestMapping(['Data', 'Data'])).toEqual({ dataPrestatie: 0 });
  });
});

describe('header signature and drift', () => {
  it('covers the full header, in order, ignoring case, diacritics and spacing', () => {
    expect(headerSignature(['Dată', 'VIN'])).toBe(headerSignature(['  data ', 'vin']));
    expect(headerSignature(['VIN', 'Data'])).not.toBe(headerSignature(['Data', 'VIN']));
    expect(headerSignature(['VIN', 'Data'])).not.toBe(headerSignature(['VIN', 'Data', 'Observații']));
  });

  it('reports the columns missing and new, and carries a saved mapping over by column name', () => {
    const saved = ['VIN', 'Auto', 'Zi', 'Contor'];
    const now = ['Zi', 'VIN', 'Auto', 'Kilometri noi'];
    expect(headerDrift(saved, 'sig', now)).toEqual({ saved_signature: 'sig', columns_missing: ['Contor'], columns_new: ['Kilometri noi'] });
    expect(carryOverMapping(saved, { vin: 0, nrInm: 1, dataPrestatie: 2, odometruFinal: 3 }, now)).toMatchObject({ vin: 1, nrInm: 2, dataPrestatie: 0 });
  });
});

describe('the rows above the data', () => {
  it('tells a title, a header and a data row apart', () => {
    expect(classifyLeadingRow(['Raport martie 2025', null])).toBe('title');
    expect(classifyLeadingRow(['VIN', 'Nr. înmatriculare'])).toBe('header');
    expect(classifyLeadingRow(['WDB1234561A654321', 'B123ABC'])).toBe('data');
    expect(classifyLeadingRow(['Ion', 45730])).toBe('data');
    expect(classifyLeadingRow(['x', '14.03.2025'])).toBe('data');
  });
});
