import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { parseXml } from '../../src/readers/xml';
import { storableValues, toSubmissionInput } from '../../src/domain/import-row';
import { columnLetters } from '../../src/readers/types';

describe('parseXml bounds the text saxes gathers', () => {
  it('refuses a 40 MB text node after reading less than 1 MB of it, before any handler sees the text', async () => {
    let served = 0;
    function* part() {
      yield '<sst><si><t>';
      for (let i = 0; i < 2_560; i += 1) {
        served += 16_384;
        yield 'a'.repeat(16_384);
      }
      yield '</t></si></sst>';
    }
    let longest = 0;
    const read = async () => {
      for await (const _ of parseXml('xl/sharedStrings.xml', Readable.from(part()), () => ({
        open() {},
        text: (t) => {
          longest = Math.max(longest, t.length);
        },
        close() {},
        where: () => 'Textul comun nr. 1',
      })));
    };
    const error = await read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ cod: 'IMPORT_CELULA_PREA_LUNGA' });
    expect((error as AppError).message).toContain('Textul comun nr. 1 are mai mult de 32.767 de caractere');
    expect(served).toBeLessThan(1024 * 1024);
    expect(longest).toBe(0);
  });

  it('lets a cell of 32,767 characters written as character references through', async () => {
    const cell = '&#x219;'.repeat(32_767);
    const texts: string[] = [];
    for await (const _ of parseXml('x', Readable.from([`<t>${cell}</t>`]), () => ({ open() {}, text: (t) => texts.push(t), close() {} })));
    expect(texts.join('')).toBe('ș'.repeat(32_767));
  });
});

describe('columnLetters', () => {
  it('names columns as a spreadsheet does', () => {
    expect([0, 25, 26, 27, 701, 702].map(columnLetters)).toEqual(['A', 'Z', 'AA', 'AB', 'ZZ', 'AAA']);
  });
});

describe('values longer than the API accepts', () => {
  it('hold the row (TEXT_PREA_LUNG) and go on cut to the bound, never between the halves of a surrogate pair', () => {
    const mapping = { vin: 0, denumire_op: 1, cod_op_service: 2 };
    const name = `${'n'.repeat(499)}😀 rest`;
    const { values, erori } = storableValues({ vin: 'V'.repeat(150), denumire_op: name, cod_op_service: 'OP1' }, mapping);
    expect(erori.map((e) => [e.cod, e.field])).toEqual([
      ['TEXT_PREA_LUNG', 'vin'],
      ['TEXT_PREA_LUNG', 'prestatii'],
    ]);
    expect(erori[0]!.cauza).toBe('Celula din coloana 1 (vin) are 150 de caractere (cel mult 100).');
    expect(values.vin).toHaveLength(100);
    const [item] = toSubmissionInput(values).prestatii;
    expect(item).toEqual({ cod_op_service: 'OP1', denumire: 'n'.repeat(499) });
  });

  it('a name of 500 characters and a code of 64 pass', () => {
    expect(storableValues({ denumire_op: 'n'.repeat(500), cod_op_service: 'C'.repeat(64) }, {}).erori).toEqual([]);
    expect(storableValues({ cod_op_service: `OP1;${'C'.repeat(65)}` }, {}).erori.map((e) => e.cod)).toEqual(['TEXT_PREA_LUNG']);
  });
});
