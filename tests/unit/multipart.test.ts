import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_PARTS, MultipartError, parseFormData, type FormPart } from '../../src/http/multipart';

// The upload's and the dashboard forms' one multipart reader. What undici reads, it reads the
// same; what real clients write that undici refuses (.NET, hand-written bodies), it reads too;
// what cannot be read is a MultipartError, never a slow search or a 15 MB header.

const TYPE = (boundary: string) => `multipart/form-data; boundary=${boundary}`;

type Plain = { name: string; value: string } | { name: string; filename: string; bytes: string };

async function byUndici(body: Buffer, type: string): Promise<Plain[]> {
  const form = await new Response(body, { headers: { 'content-type': type } }).formData();
  const out: Plain[] = [];
  for (const [name, v] of form) out.push(typeof v === 'string' ? { name, value: v } : { name, filename: v.name, bytes: Buffer.from(await v.arrayBuffer()).toString('hex') });
  return out;
}

const plain = (parts: FormPart[]): Plain[] => parts.map((p) => ('bytes' in p ? { name: p.name, filename: p.filename, bytes: p.bytes.toString('hex') } : p));

function body(boundary: string, parts: Array<{ headers: string; content: Buffer | string }>, end = '\r\n'): Buffer {
  const pieces = parts.flatMap((p) => [Buffer.from(`--${boundary}\r\n${p.headers}\r\n\r\n`), Buffer.from(p.content), Buffer.from('\r\n')]);
  return Buffer.concat([...pieces, Buffer.from(`--${boundary}--${end}`)]);
}

describe('what undici reads, read the same', () => {
  it('fields and files, with UTF-8 names, CRLFs and the start of a delimiter inside the content', async () => {
    const b = '----WebKitFormBoundary7MA4YWxkTrZu0gW';
    const file = Buffer.concat([Buffer.from(`VIN;Km\r\n--${b.slice(0, 30)}\r\n--\r\n`), randomBytes(5000)]);
    const input = body(b, [
      { headers: 'Content-Disposition: form-data; name="sheet"', content: 'Foaie 1 – ță' },
      { headers: 'content-disposition: form-data; name="file"; filename="lucrări a%22b.csv"\r\nContent-Type: text/csv', content: file },
      { headers: 'Content-Disposition: form-data; name="gol"', content: '' },
      { headers: 'Content-Disposition: form-data; name="f2"; filename=""\r\nContent-Type: application/octet-stream', content: '' },
      { headers: 'Content-Disposition: form-data; name="rânduri"', content: 'a\r\nb\r\n' },
    ]);
    const parts = parseFormData(input, TYPE(b));
    expect(plain(parts)).toEqual(await byUndici(input, TYPE(b)));
    expect(parts[1]).toMatchObject({ name: 'file', filename: 'lucrări a"b.csv' });
    // The file is a view into the body: no copy.
    expect((parts[1] as { bytes: Buffer }).bytes.buffer).toBe(input.buffer);
  });

  it('random bodies, each against undici', async () => {
    for (let round = 0; round < 50; round++) {
      const b = randomBytes(8 + (round % 40)).toString('base64url');
      const parts = Array.from({ length: 1 + (round % 4) }, (_, i) =>
        i % 2
          ? { headers: `Content-Disposition: form-data; name="f${i}"; filename="f${i}.bin"`, content: randomBytes(round * 37) }
          : { headers: `Content-Disposition: form-data; name="t${i}"`, content: `v${round}` },
      );
      const input = body(b, parts, round % 3 ? '\r\n' : '');
      expect(plain(parseFormData(input, TYPE(round % 2 ? `"${b}"` : b)))).toEqual(await byUndici(input, TYPE(round % 2 ? `"${b}"` : b)));
    }
  });

  it('an empty form (only the closing boundary) has no parts', () => {
    expect(parseFormData(Buffer.from('--q--\r\n'), TYPE('q'))).toEqual([]);
  });
});

describe('what real clients write and undici refuses', () => {
  it('.NET: bare parameters and filename* next to filename; the plain filename wins', () => {
    const input = Buffer.from(
      "--b1\r\nContent-Type: application/octet-stream\r\nContent-Disposition: form-data; name=file; filename=x.csv; filename*=utf-8''y.csv\r\n\r\nVIN;Km\r\n--b1--\r\n",
    );
    expect(plain(parseFormData(input, TYPE('"b1"')))).toEqual([{ name: 'file', filename: 'x.csv', bytes: Buffer.from('VIN;Km').toString('hex') }]);
  });

  it('filename* alone is decoded; a preamble, an epilogue and padding after the boundary are allowed', () => {
    const input = Buffer.from('preambul\r\n--b1  \r\nContent-Disposition: form-data; name="file"; filename*=UTF-8\'\'lucr%C4%83ri.csv\r\n\r\nx\r\n--b1--\r\nepilog');
    expect(parseFormData(input, TYPE('b1'))).toMatchObject([{ name: 'file', filename: 'lucrări.csv' }]);
  });

  it('the boundary’s text inside a file, where it is no delimiter, stays in the file', () => {
    const input = body('b1', [{ headers: 'Content-Disposition: form-data; name="f"; filename="x"', content: 'a b1 --b1x \r\nb1' }]);
    expect(plain(parseFormData(input, TYPE('b1')))).toEqual([{ name: 'f', filename: 'x', bytes: Buffer.from('a b1 --b1x \r\nb1').toString('hex') }]);
  });

  it('a backslash-escaped quote in a quoted name', () => {
    const input = Buffer.from('--b1\r\nContent-Disposition: form-data; name="f"; filename="a\\"b.csv"\r\n\r\nx\r\n--b1--\r\n');
    expect(parseFormData(input, TYPE('b1'))).toMatchObject([{ filename: 'a"b.csv' }]);
  });
});

describe('what cannot be read', () => {
  const refused =
    (text: string | Buffer, type = TYPE('q')) =>
    () =>
      parseFormData(Buffer.from(text), type);

  it.each([
    ['garbage', 'garbage'],
    ['an empty body', ''],
    ['no closing boundary', '--q\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--q\r\n'],
    ['cut off in the content', '--q\r\nContent-Disposition: form-data; name="a"\r\n\r\nxyz'],
    ['cut off in the headers', '--q\r\nContent-Disposition: form-data; name="a"'],
    ['no Content-Disposition', '--q\r\nContent-Type: text/plain\r\n\r\nx\r\n--q--\r\n'],
    ['not form-data', '--q\r\nContent-Disposition: attachment; name="a"\r\n\r\nx\r\n--q--\r\n'],
    ['no name', '--q\r\nContent-Disposition: form-data; filename="a"\r\n\r\nx\r\n--q--\r\n'],
    ['an unreadable parameter', '--q\r\nContent-Disposition: form-data; name="a"; bogus\r\n\r\nx\r\n--q--\r\n'],
    ['text after the boundary on its line', '--qq\r\nContent-Disposition: form-data; name="a"\r\n\r\nx\r\n--q--\r\n'],
  ])('%s', (_label, text) => {
    expect(refused(text)).toThrow(MultipartError);
  });

  it.each(['multipart/form-data', 'multipart/form-data; boundary=', `multipart/form-data; boundary=${'x'.repeat(71)}`])('a content type without a usable boundary: %s', (type) => {
    expect(refused('--q--\r\n', type)).toThrow(MultipartError);
  });

  it(`more than ${MAX_PARTS} parts`, () => {
    const many = Array.from({ length: MAX_PARTS + 1 }, () => ({ headers: 'Content-Disposition: form-data; name="a"', content: '' }));
    expect(refused(body('q', many))).toThrow(`more than ${MAX_PARTS} parts`);
    expect(parseFormData(body('q', many.slice(1)), TYPE('q'))).toHaveLength(MAX_PARTS);
  });

  it('headers that never end are not read past 16 KB', () => {
    const input = Buffer.concat([Buffer.from(`--q\r\nContent-Disposition: form-data; name="a"\r\nX: ${'y'.repeat(20_000)}\r\n\r\nx\r\n--q--\r\n`)]);
    expect(refused(input)).toThrow('blank line');
  });

  it('a 15 MB file made of a one-letter boundary is read in one native search, not one step per letter', () => {
    const file = Buffer.alloc(15 * 2 ** 20, 'a');
    const input = body('a', [{ headers: 'Content-Disposition: form-data; name="file"; filename="a.csv"', content: file }]);
    const started = performance.now();
    const [part] = parseFormData(input, TYPE('a'));
    expect((part as { bytes: Buffer }).bytes.length).toBe(file.length);
    // Stepping through 15 million false hits takes seconds; the delimiter search, milliseconds.
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
