import { describe, expect, it } from 'vitest';
import { normalizeText } from '../../src/domain/text';
import { parseFormData } from '../../src/http/multipart';
import { harbourSubmission, harbourUpload } from '../../src/clients/examples/harbour';
import { vfpSubmission, vfpUpload } from '../../src/clients/examples/vfp';
import { BATCH, COMMIT, DRY_RUN, KEY_PLACEHOLDER, PREVIEW, SUBMIT, UPLOAD } from '../../src/clients/operations';

// The xBase examples cannot run here (no FoxPro, no Harbour on the test machines): they are
// checked as structure. Every block opened is closed in order, the paths and headers are the
// description's, every field the gateway answers with is read by its own name.

const BASE = 'http://gateway.test:3000';
const OPENERS: Record<string, string> = { IF: 'ENDIF', 'DO CASE': 'ENDCASE', 'DO WHILE': 'ENDDO', TRY: 'ENDTRY', FOR: 'NEXT', FUNCTION: 'ENDFUNC' };

/** The blocks' keywords line by line, checked as a stack; an error names the line. */
function unbalanced(code: string, dialect: 'vfp' | 'harbour'): string[] {
  const stack: string[] = [];
  const problems: string[] = [];
  code.split('\n').forEach((raw, i) => {
    const line = raw.trim().replace(/\s*(&&|\/\/).*$/, '');
    if (line.startsWith('*') || line === '') return;
    const word = /^(DO WHILE|ENDDO|DO CASE|ENDCASE|IF|ENDIF|ELSE|ELSEIF|TRY|CATCH|ENDTRY|FOR EACH|FOR|NEXT|FUNCTION|STATIC FUNCTION|STATIC PROCEDURE|PROCEDURE|ENDFUNC|RETURN)\b/i
      .exec(line)?.[1]
      ?.toUpperCase();
    if (!word) return;
    const opener = word.replace(/^STATIC /, '').replace('FOR EACH', 'FOR');
    if (dialect === 'harbour' && (opener === 'FUNCTION' || opener === 'PROCEDURE')) {
      // Harbour: a function ends at the next one; it must not start inside a block.
      if (stack.length) problems.push(`line ${i + 1}: ${word} inside ${stack.join(' > ')}`);
      return;
    }
    if (opener in OPENERS) stack.push(opener);
    else if (Object.values(OPENERS).includes(opener)) {
      const open = stack.pop();
      if (!open || OPENERS[open] !== opener) problems.push(`line ${i + 1}: ${word} closes ${open ?? 'nothing'}`);
    } else if ((word === 'CATCH' && stack.at(-1) !== 'TRY') || ((word === 'ELSE' || word === 'ELSEIF') && stack.at(-1) !== 'IF')) {
      problems.push(`line ${i + 1}: ${word} outside its block`);
    }
  });
  if (stack.length) problems.push(`unclosed: ${stack.join(' > ')}`);
  return problems;
}

describe.each([
  ['vfp', vfpSubmission(BASE), vfpUpload(BASE)],
  ['harbour', harbourSubmission(BASE), harbourUpload(BASE)],
] as const)('the %s examples, checked as structure', (dialect, submission, upload) => {
  it('open and close every block in order', () => {
    expect(unbalanced(submission.code, dialect)).toEqual([]);
    expect(unbalanced(upload.code, dialect)).toEqual([]);
  });

  it('call the description’s paths with its methods, the key header and UTF-8 JSON', () => {
    for (const code of [submission.code, upload.code]) {
      expect(code).toContain(BASE);
      expect(code).toContain(KEY_PLACEHOLDER);
      expect(code).toMatch(/"X-API-Key"|"X-API-Key: "/);
      expect(code).not.toContain('reg_credentials');
    }
    for (const op of [DRY_RUN, SUBMIT]) expect(submission.code).toContain(`"${op.method}", "${op.path}"`);
    expect(submission.code).toContain('application/json; charset=utf-8');
    expect(upload.code).toContain(`"${UPLOAD.method}", "${UPLOAD.path}"`);
    expect(upload.code).toContain('multipart/form-data; boundary=');
    expect(upload.code).toContain('form-data; name="file"');
    expect(upload.code).toMatch(/"\/v1\/import\/" \+ .+ \+ "\/preview\?page_size=1"/);
    expect(upload.code).toMatch(/"\/v1\/import\/" \+ .+ \+ "\/commit"/);
    // The wait while a large file stages: the batch's own address, then its status.
    expect(upload.code).toMatch(/"GET", "\/v1\/import\/" \+ [^,]+, (\.NULL\.|NIL)/);
    expect(upload.code).toContain('"staging"');
    expect(upload.code).toContain('"n_confirmed"');
    expect(upload.code).toContain('"rows_hash"');
  });

  it('read every field the description says the answer carries, by name', () => {
    for (const name of [...DRY_RUN.reads, ...SUBMIT.reads]) expect(submission.code).toContain(`"${name}"`);
    for (const name of [...UPLOAD.reads, ...BATCH.reads, ...PREVIEW.reads, ...COMMIT.reads]) expect(upload.code).toContain(`"${name}"`);
  });

  it('upload the program’s own table: a .dbf copied by COPY TO, with the code page field when the header names the wrong one (issue 37)', () => {
    expect(upload.code).toMatch(/COPY TO \( ?\w+ ?\) FIELDS/i);
    expect(upload.code).toContain(`.dbf"`);
    expect(upload.code).toContain('form-data; name="codepage"');
    expect(upload.code).not.toContain('prestatii.csv');
    expect(unbalanced(upload.code, dialect)).toEqual([]);
  });

  it('send text as UTF-8 the dialect’s way', () => {
    if (dialect === 'vfp') {
      expect(submission.code).toContain('CREATEBINARY(STRCONV(lcPrezentare, 9))');
      expect(upload.code).toContain('CREATEBINARY(lcBody)');
      expect(submission.code).toContain('MSXML2.ServerXMLHTTP.6.0');
    } else {
      expect(submission.code).toContain('hb_jsonEncode( hPrezentare, .F., "UTF8" )');
      expect(submission.code).toContain('hb_jsonDecode( cAnswer, @xAnswer, "UTF8" )');
      expect(submission.code).toContain('#require "hbcurl"');
    }
  });
});

describe('what the xBase note promises', () => {
  it('ş and ţ (cedilla, Windows-1250) match ș and ț (comma below)', () => {
    expect(normalizeText('Înlocuire garnitură chiulasă, şurub ţeavă')).toBe(normalizeText('Înlocuire garnitură chiulasă, șurub țeavă'));
  });

  it('a .NET multipart body (bare name=, filename*=) is readable, its content unchanged', () => {
    const body = Buffer.from(
      "--b1\r\nContent-Type: application/octet-stream\r\nContent-Disposition: form-data; name=file; filename=x.csv; filename*=utf-8''x.csv\r\n\r\nVIN;Km\r\n--b1--\r\n",
    );
    const [file] = parseFormData(body, 'multipart/form-data; boundary="b1"');
    expect(file).toMatchObject({ name: 'file', filename: 'x.csv' });
    expect(file && 'bytes' in file && file.bytes.toString()).toBe('VIN;Km');
  });
});
