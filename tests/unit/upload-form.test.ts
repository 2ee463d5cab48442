import { describe, expect, it } from 'vitest';
import type { FormPart } from '../../src/http/multipart';
import { readUploadForm } from '../../src/services/import/upload-form';

// The one reading of an upload's form (API `sheet`, dashboard `foaie`): the two routes each
// read the file, the sheet name and the code page by hand, with their own words and rules
// (the dashboard trimmed a typed name, the API did not; the API named a blank one as none).

const file = (filename = 'prestatii.csv'): FormPart => ({ name: 'file', filename, bytes: Buffer.from('a;b\r\n') });

describe('readUploadForm', () => {
  it('reads the file, the sheets named in the given field (blank ones name none) and a listed code page', () => {
    const read = readUploadForm([file(), { name: 'foaie', value: ' Iunie ' }, { name: 'foaie', value: '' }, { name: 'codepage', value: '852' }], 'foaie');
    expect(read).toMatchObject({ ok: true, upload: { filename: 'prestatii.csv', sheets: ['Iunie'], codePage: 852 } });
    expect(readUploadForm([file(), { name: 'foaie', value: 'Iunie' }], 'sheet')).toMatchObject({ ok: true, upload: { sheets: [], codePage: undefined } });
  });

  it('names the field at fault', () => {
    const problem = (parts: FormPart[]) => {
      const read = readUploadForm(parts, 'sheet');
      return read.ok ? null : [read.problem.field, read.problem.type];
    };
    expect(problem([])).toEqual(['file', 'file_missing']);
    expect(problem([{ name: 'file', value: 'text' }])).toEqual(['file', 'file_missing']);
    expect(problem([file(), file()])).toEqual(['file', 'too_many_files']);
    expect(problem([file(), { name: 'sheet', value: 'x'.repeat(201) }])).toEqual(['sheet', 'sheet_invalid']);
    expect(problem([file(), { name: 'sheet', value: 'a\u0000b' }])).toEqual(['sheet', 'unstorable_char']);
    expect(problem([file(), { name: 'sheet', filename: 'x', bytes: Buffer.alloc(1) }])).toEqual(['sheet', 'sheet_invalid']);
    expect(problem([file(), { name: 'codepage', value: '9999' }])).toEqual(['codepage', 'codepage_invalid']);
    expect(problem([file(), { name: 'codepage', value: '852' }, { name: 'codepage', value: '1250' }])).toEqual(['codepage', 'codepage_invalid']);
  });

  it('keeps the file name storable and at most 255 characters; none when nothing is left', () => {
    expect(readUploadForm([file(`${'a'.repeat(300)}.csv`)], 'sheet')).toMatchObject({ ok: true, upload: { filename: 'a'.repeat(255) } });
    expect(readUploadForm([file('')], 'sheet')).toMatchObject({ ok: true, upload: { filename: null } });
  });
});
