// multipart/form-data (RFC 7578 over RFC 2046), read from a body already in memory. A file's
// bytes are a view into the body, never a copy: undici's Response.formData() copied a 15 MB
// upload three times and held the event loop for 15–45 ms doing it, while other accounts'
// calls waited. Finding a delimiter is one native search for the boundary itself (a rare first
// byte, so it skips through a file at memchr's speed), then a check of the bytes around it.
//
// Kinder than undici on what real clients write: a preamble and transport padding (RFC 2046),
// bare parameters and `filename*` next to `filename` (.NET's MultipartFormDataContent, xBase
// programs writing the body by hand), backslash escapes (older curl). Browsers' escapes in a
// quoted name (%22, %0D, %0A: the HTML standard's) are decoded, as undici does.

export type FormField = { name: string; value: string };
/** A file's part: `bytes` is a view into the body. */
export type FormFile = { name: string; filename: string; bytes: Buffer };
export type FormPart = FormField | FormFile;

export function isFormFile(value: unknown): value is FormFile {
  return typeof value === 'object' && value !== null && 'bytes' in value;
}

/** The body is not multipart/form-data that can be read; the message says where it breaks. */
export class MultipartError extends Error {}

/** Far more than any of our forms sends; a 15 MB body of empty parts would otherwise be 300,000 of them. */
export const MAX_PARTS = 1000;

const CRLF = 0x0a0d; // "\r\n" read as a little-endian uint16
const DASHES = 0x2d2d; // "--"
const HEADERS_END = Buffer.from('\r\n\r\n');
/** A part's header lines: a few hundred bytes from any client. */
const MAX_HEADERS = 16 * 1024;
/** Boundaries found inside a part's content before the search looks for the whole delimiter. */
const MAX_MISSES = 16;

/** The boundary of a multipart content type, quoted or not (RFC 2046: 1 to 70 characters). */
export function multipartBoundary(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^;\s"]{1,70}))\s*(?:;|$)/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** The parts of `body`, in order; throws MultipartError for a body that does not parse. */
export function parseFormData(body: Buffer, contentType: string): FormPart[] {
  const boundary = multipartBoundary(contentType);
  if (!boundary) throw new MultipartError('no boundary in the content type');
  const delimiters = new Delimiters(body, Buffer.from(boundary, 'latin1'));
  const parts: FormPart[] = [];
  let at = delimiters.first();
  for (;;) {
    const afterDelimiter = delimiters.lineEnd(at);
    if (afterDelimiter === 'close') return parts;
    if (parts.length === MAX_PARTS) throw new MultipartError(`more than ${MAX_PARTS} parts`);
    const headersEnd = body.subarray(0, afterDelimiter + MAX_HEADERS).indexOf(HEADERS_END, afterDelimiter - 2);
    if (headersEnd < 0) throw new MultipartError('a part without the blank line after its headers');
    const next = delimiters.next(headersEnd + 4);
    const headers = headersEnd > afterDelimiter ? body.toString('utf8', afterDelimiter, headersEnd).split('\r\n') : [];
    parts.push(partOf(headers, body.subarray(headersEnd + 4, next - 2)));
    at = next;
  }
}

/** Where `--boundary` stands at the start of a line: the first, the next after a part, and what follows one. */
class Delimiters {
  private readonly delimiter: Buffer;

  constructor(
    private readonly body: Buffer,
    private readonly boundary: Buffer,
  ) {
    this.delimiter = Buffer.concat([Buffer.from('\r\n--'), boundary]);
  }

  /** The first delimiter ("--boundary"), at the body's start or after a preamble. */
  first(): number {
    return this.body.subarray(0, this.delimiter.length - 2).equals(this.delimiter.subarray(2)) ? 0 : this.next(0);
  }

  /**
   * The next delimiter's "--" at or after `from`, with the CRLF before it (which belongs to
   * the delimiter, not the content). The boundary alone is searched first; a file that holds
   * it often (a hostile one, a one-letter boundary) is searched for the whole delimiter.
   */
  next(from: number): number {
    const { body, boundary } = this;
    let found = body.indexOf(boundary, from + 4);
    for (let misses = 0; found >= 0 && misses < MAX_MISSES; misses++) {
      if (body.readUInt16LE(found - 4) === CRLF && body.readUInt16LE(found - 2) === DASHES) return found - 2;
      found = body.indexOf(boundary, found + 1);
    }
    const at = found < 0 ? -1 : body.indexOf(this.delimiter, found - 3);
    if (at < 0) throw new MultipartError('the body ends before the closing boundary');
    return at + 2;
  }

  /** After the delimiter at `start`: "close" for the closing one, else where the part's headers begin. */
  lineEnd(start: number): number | 'close' {
    const { body } = this;
    let i = start + 2 + this.boundary.length;
    if (i + 2 <= body.length && body.readUInt16LE(i) === DASHES) return 'close';
    while (body[i] === 0x20 || body[i] === 0x09) i++;
    if (i + 2 > body.length || body.readUInt16LE(i) !== CRLF) throw new MultipartError('a boundary line that does not end where it should');
    return i + 2;
  }
}

/** A part from its header lines and its content. */
function partOf(headers: string[], content: Buffer): FormPart {
  const disposition = headers.find((line) => /^content-disposition:/i.test(line))?.slice('content-disposition:'.length);
  if (disposition === undefined) throw new MultipartError('a part without Content-Disposition');
  const [kind, params] = dispositionParams(disposition);
  if (kind !== 'form-data') throw new MultipartError('a part whose Content-Disposition is not form-data');
  const name = params.get('name');
  if (name === undefined) throw new MultipartError('a part without a name');
  const filename = params.get('filename') ?? params.get('filename*');
  if (filename !== undefined) return { name, filename, bytes: content };
  return { name, value: content.toString('utf8') };
}

/** `form-data; name="a"; filename=b.csv` → ["form-data", {name: a, filename: b.csv}]; the first of a parameter sent twice wins. */
function dispositionParams(value: string): [string, Map<string, string>] {
  const params = new Map<string, string>();
  const token = /^\s*([^;\s]+)\s*/.exec(value);
  let rest = value.slice(token?.[0].length ?? 0);
  const param = /^;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))\s*/;
  for (let m = param.exec(rest); m; m = param.exec(rest)) {
    const key = m[1]!.toLowerCase();
    const raw = m[2] !== undefined ? unquote(m[2]) : m[3]!.trim();
    if (!params.has(key)) params.set(key, key.endsWith('*') ? extendedValue(raw) : raw);
    rest = rest.slice(m[0].length);
  }
  if (rest.trim() !== '') throw new MultipartError('a Content-Disposition that cannot be read');
  return [(token?.[1] ?? '').toLowerCase(), params];
}

/** A quoted string's content: backslash escapes, and the HTML standard's %22, %0D, %0A. */
function unquote(quoted: string): string {
  return quoted.replace(/\\(.)/g, '$1').replace(/%(22|0D|0A)/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** RFC 5987's `utf-8''x%C8%9B.csv` (the only charset any client sends); another value stays as sent. */
function extendedValue(raw: string): string {
  const match = /^utf-8'[^']*'(.*)$/i.exec(raw);
  if (!match) return raw;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return raw;
  }
}
