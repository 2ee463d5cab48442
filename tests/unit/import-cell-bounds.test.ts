import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors';
import { parseXml } from '../../src/import/xml';
import { columnLetters } from '../../src/import/types';

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
