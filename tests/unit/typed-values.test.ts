import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/domain/canonical';
import { odometerText } from '../../src/domain/import-cells';
import { readRecordFields } from '../../src/domain/import-row';
import { validateContent } from '../../src/domain/validate';

// The one reader of what a clerk types or a file holds (issue 31): the panel's correction, the
// import's cells and edits all read through readRecordFields, then the API's canonicalisation.
const now = new Date('2026-11-27T10:00:00Z');
const typed = { vin: 'WDB1234561A654321', nrInm: 'B123ABC', dataPrestatie: '14.03.2025', odometruInitial: '', odometruFinal: '87400' };

function read(fields: Partial<typeof typed>) {
  const content = canonicalize({ ...readRecordFields({ ...typed, ...fields }), prestatii: [{ cod_prestatie: 'OE-3' }], b64Image: '' });
  return { content, erori: validateContent(content, now) };
}

describe('odometers as a Romanian clerk writes them', () => {
  it.each(['87.400', '87 400', '87 400 km', '87400 KM', '87,400', '87\u00a0400', '87400,0', '87400.0', ' 87400 '])('%j is 87400 km', (odometruFinal) => {
    const { content, erori } = read({ odometruFinal });
    expect(content.odometruFinal).toBe(87400);
    expect(erori).toEqual([]);
  });

  it('reads 154.200 and 1.154.200 as thousands', () => {
    expect(read({ odometruFinal: '154.200' }).content.odometruFinal).toBe(154200);
    expect(read({ odometruFinal: '1.154.200' }).content.odometruFinal).toBe(1154200);
  });

  it.each([
    ['87,4', '87,4'],
    ['87.4', '87,4'],
    ['154.20', '154,2'],
    ['87.400,5', '87400,5'],
  ])('%j is refused as not whole kilometres, never rounded', (odometruFinal, shown) => {
    const { erori } = read({ odometruFinal });
    expect(erori).toHaveLength(1);
    expect(erori[0]).toMatchObject({ cod: 'ODOMETRU_ZECIMAL', field: 'odometruFinal' });
    expect(erori[0]!.cauza).toContain(shown);
  });

  it('refuses a fraction the API is sent too, as a number or as text (the API reads "87.400" as the spec says: 87.4)', () => {
    for (const odometruFinal of [87.4, '87.400']) {
      const content = canonicalize({ ...typed, odometruInitial: null, dataPrestatie: '2025-03-14', odometruFinal, prestatii: [{ cod_prestatie: 'OE-3' }] });
      expect(validateContent(content, now).map((e) => e.cod)).toEqual(['ODOMETRU_ZECIMAL']);
    }
  });

  it('writes a held fraction so that a form saved unchanged reads it back as the same fraction, refused again (never 87.456 → 87456 km)', () => {
    for (const [value, written] of [
      [87.4, '87,4'],
      [87.456, '87,4560'],
      [1.5, '1,5'],
      [154.25, '154,25'],
      [1234.567, '1234,567'],
      [999.999, '999,9990'],
    ] as const) {
      expect(odometerText(value)).toBe(written);
      const { content, erori } = read({ odometruFinal: written });
      expect(content.odometruFinal, written).toBe(value);
      expect(erori.map((e) => e.cod)).toEqual(['ODOMETRU_ZECIMAL']);
      expect(erori[0]!.cauza).toContain(`${written} are zecimale`);
    }
  });

  it('keeps what is not a number as written, for the reason to name it', () => {
    const { content, erori } = read({ odometruFinal: '87 mii' });
    expect(content.odometruFinal).toBe('87mii');
    expect(erori.map((e) => e.cod)).toEqual(['ODOMETRU_INVALID']);
  });
});

describe('VINs, plates and dates as typed', () => {
  it.each(['WDB 1234561A 654321', 'wdb-1234561a-654321', 'WDB.1234561A.654321', ' WDB1234561A654321\u00a0'])('%j is the VIN without spaces, dashes or dots', (vin) => {
    const { content, erori } = read({ vin });
    expect(content.vin).toBe('WDB1234561A654321');
    expect(erori).toEqual([]);
  });

  it('reads a printed plate and the dates the screens and files write', () => {
    expect(read({ nrInm: 'b 123 abc' }).content.nrInm).toBe('B123ABC');
    for (const dataPrestatie of ['14.03.2025', '14/03/2025', '2025-03-14', '14.03.25']) {
      expect(read({ dataPrestatie }).content.dataPrestatie, dataPrestatie).toBe('2025-03-14');
    }
    expect(read({ dataPrestatie: '31.02.2025' }).erori.map((e) => e.cod)).toEqual(['DATA_INVALIDA']);
  });
});
