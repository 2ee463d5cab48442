import { describe, expect, it } from 'vitest';
import { parseDateCell, parseOdometerCell, parsePlateCell, serialToIsoDate, splitCodes, splitNames } from '../../src/domain/import-cells';
import { toSubmissionInput } from '../../src/domain/import-row';

describe('dates as spreadsheets write them', () => {
  it.each([
    [45730, '2025-03-14'],
    [45730.75, '2025-03-14'],
    ['45730', '2025-03-14'],
    ['14.03.2025', '2025-03-14'],
    ['4.3.2025', '2025-03-04'],
    ['14/03/2025', '2025-03-14'],
    ['14-03-25', '2025-03-14'],
    ['14.03.2025 10:30', '2025-03-14'],
    ['2025-03-14', '2025-03-14'],
    ['2025-03-14T10:30:00Z', '2025-03-14'],
    [' 2025-03-14 ', '2025-03-14'],
  ])('%j → %s', (cell, iso) => expect(parseDateCell(cell)).toBe(iso));

  it('keeps what is not a date, for validation to report', () => {
    expect(parseDateCell('31.02.2025')).toBe('31.02.2025');
    expect(parseDateCell('mâine')).toBe('mâine');
    expect(parseDateCell(null)).toBe('');
  });

  it('counts 1904-system serials from 1904', () => {
    expect(serialToIsoDate(44268, true)).toBe('2025-03-14');
  });
});

describe('odometers as spreadsheets write them', () => {
  it.each([
    [154200, 154200],
    [154200.5, 154200.5],
    ['154200.0', '154200.0'],
    ['154.200', '154200'],
    ['1.154.200', '1154200'],
    ['154.200,5', '154200.5'],
    ['154,200', '154200'],
    ['154200,0', '154200.0'],
    ['154 200 km', '154200'],
    ['', null],
    [null, null],
  ])('%j → %j', (cell, value) => expect(parseOdometerCell(cell)).toBe(value));

  it('becomes the API number after canonicalisation', () => {
    const input = toSubmissionInput({ odometruFinal: '154200.0', odometruInitial: '154.000' });
    expect([input.odometruFinal, input.odometruInitial]).toEqual(['154200.0', '154000']);
  });
});

describe('plates and operation cells', () => {
  it('reads a printed plate as the registry writes it', () => {
    expect(parsePlateCell(' B-123-ABC ')).toBe('B123ABC');
    expect(parsePlateCell('CJ 10 XYZ')).toBe('CJ10XYZ');
  });

  it('splits several codes on ; or , and pairs the names by position', () => {
    expect(splitCodes('SCH-ULEI; FILTRU,OE-3 ;')).toEqual(['SCH-ULEI', 'FILTRU', 'OE-3']);
    expect(splitNames('Schimb ulei; Filtru aer', 2)).toEqual(['Schimb ulei', 'Filtru aer']);
    expect(splitNames('Schimb ulei, Filtru aer', 2)).toEqual(['Schimb ulei', 'Filtru aer']);
    // One code keeps the whole cell, commas and all.
    expect(splitNames('Schimb ulei, filtru și garnitură', 1)).toEqual(['Schimb ulei, filtru și garnitură']);
    expect(splitNames('Doar unul', 3)).toEqual(['Doar unul', '', '']);
  });

  it('makes one submission of a row, with internal and registry codes', () => {
    const input = toSubmissionInput({
      vin: ' wdb1234561a654321 ',
      nrInm: 'b-1-abc',
      dataPrestatie: 45730,
      odometruFinal: 1000,
      cod_op_service: 'A;B',
      denumire_op: 'Unu;Doi',
      cod_prestatie: 'OE-3',
    });
    expect(input).toEqual({
      vin: 'wdb1234561a654321',
      nrInm: 'b1abc',
      dataPrestatie: '2025-03-14',
      odometruInitial: null,
      odometruFinal: 1000,
      prestatii: [{ cod_prestatie: 'OE-3' }, { cod_op_service: 'A', denumire: 'Unu' }, { cod_op_service: 'B', denumire: 'Doi' }],
    });
  });
});
