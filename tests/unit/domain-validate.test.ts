import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/domain/canonical';
import { todayInBucharest } from '../../src/domain/dates';
import { validateContent } from '../../src/domain/validate';

// 22:30 UTC on 14 March is already 15 March in Bucharest (UTC+2).
const NOW = new Date('2025-03-14T22:30:00Z');
const base = { vin: 'WDB1234561A654321', nrInm: 'B123ABC', dataPrestatie: '2025-03-14', odometruFinal: 154200, prestatii: [{ cod_prestatie: 'OE-3' }] };
const errors = (over: object, resolved: string[] = []) => validateContent(canonicalize({ ...base, ...over }), NOW, resolved);
const fields = (over: object, resolved: string[] = []) => errors(over, resolved).map((e) => `${e.field}:${e.cod}`);

describe('validateContent', () => {
  it('accepts a valid submission', () => {
    expect(errors({})).toEqual([]);
  });

  it.each([
    ['WDB1234561A65432', 'vin:VIN_INVALID'],
    ['WDB1234561A6543210', 'vin:VIN_INVALID'],
    ['WDB1234561O654321', 'vin:VIN_INVALID'],
    ['WDB1234561I654321', 'vin:VIN_INVALID'],
    ['WDB1234561Q654321', 'vin:VIN_INVALID'],
    ['WDB12345-1A654321', 'vin:VIN_INVALID'],
  ])('rejects VIN %s', (vin, expected) => {
    expect(fields({ vin })).toEqual([expected]);
  });

  it.each(['', 'B 123 ABC', 'B-123-ABC', 'ABCDEFGHIJK'])('rejects plate %j', (nrInm) => {
    expect(fields({ nrInm })).toEqual(['nrInm:NRINM_INVALID']);
  });

  it('bounds the date to [2024-12-01, today in Bucharest]', () => {
    expect(todayInBucharest(NOW)).toBe('2025-03-15');
    expect(fields({ dataPrestatie: '2024-11-30' })).toEqual(['dataPrestatie:DATA_PREA_VECHE']);
    expect(fields({ dataPrestatie: '2024-12-01' })).toEqual([]);
    expect(fields({ dataPrestatie: '2025-03-15' })).toEqual([]);
    expect(fields({ dataPrestatie: '2025-03-16' })).toEqual(['dataPrestatie:DATA_IN_VIITOR']);
    expect(fields({ dataPrestatie: '2025-02-30' })).toEqual(['dataPrestatie:DATA_INVALIDA']);
    expect(fields({ dataPrestatie: '14.03.2025' })).toEqual(['dataPrestatie:DATA_INVALIDA']);
  });

  it('checks odometers: numeric, initial <= final, initial required by R-ODO / I-ODO', () => {
    expect(fields({ odometruFinal: 'abc' })).toEqual(['odometruFinal:ODOMETRU_INVALID']);
    expect(fields({ odometruFinal: null })).toEqual(['odometruFinal:ODOMETRU_INVALID']);
    expect(fields({ odometruFinal: -5 })).toEqual(['odometruFinal:ODOMETRU_INVALID']);
    expect(fields({ odometruInitial: 200000 })).toEqual(['odometruInitial:ODOMETRU_INVERSAT']);
    expect(fields({ odometruInitial: 'x' })).toEqual(['odometruInitial:ODOMETRU_INVALID']);
    expect(fields({ prestatii: [{ cod_prestatie: 'R-ODO' }] })).toEqual(['odometruInitial:ODOMETRU_INITIAL_LIPSA']);
    expect(fields({ prestatii: [{ cod_prestatie: 'I-ODO' }], odometruInitial: 100 })).toEqual([]);
    // A workshop code that resolves to R-ODO needs it too.
    expect(fields({ prestatii: [{ cod_op_service: 'ODO', denumire: 'x' }] }, ['R-ODO'])).toEqual(['odometruInitial:ODOMETRU_INITIAL_LIPSA']);
  });

  it('requires at least one item and valid base64', () => {
    expect(fields({ prestatii: [] })).toEqual(['prestatii:PRESTATII_GOALE']);
    expect(fields({ b64Image: 'QUJD' })).toEqual([]);
    expect(fields({ b64Image: '' })).toEqual([]);
    expect(fields({ b64Image: 'QUJ' })).toEqual(['b64Image:IMAGINE_INVALIDA']);
    expect(fields({ b64Image: 'data:image/png;base64,QUJD' })).toEqual(['b64Image:IMAGINE_INVALIDA']);
  });

  it('gives every error the field/message form plus the three-level detail', () => {
    const [e] = errors({ vin: 'SHORT' });
    expect(e).toMatchObject({ field: 'vin', cod: 'VIN_INVALID' });
    for (const k of ['message', 'problema', 'cauza', 'fix'] as const) expect(e?.[k]).toMatch(/\S/);
    expect(e?.cauza).toContain('5 caractere');
  });
});
