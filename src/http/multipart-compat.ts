// .NET's MultipartFormDataContent (HttpClient, Framework and mono) writes a part's parameters
// as tokens and adds an RFC 5987 name, `name=file; filename=x.csv; filename*=utf-8''x.csv`,
// which undici's form parser refuses (RFC 7578 says not to send `filename*`). A body that
// failed to parse gets its part headers' bare parameters quoted and `filename*` dropped (the
// plain filename stays), and is parsed once more; the parts' contents are copied unchanged.

const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');
const BARE_PARAM = /;(\s*)(name|filename)=([^";\r\n]+)/gi;
const EXTENDED_FILENAME = /;\s*filename\*=[^;\r\n]*/gi;

/** The boundary of a multipart content type, quoted or not. */
export function multipartBoundary(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

/** `body` with each part's Content-Disposition parameters quoted, or null when nothing was bare. */
export function quoteBareParameters(body: Buffer, boundary: string): Buffer | null {
  const delimiter = Buffer.from(`--${boundary}`);
  const pieces: Buffer[] = [];
  let changed = false;
  let at = 0;
  for (;;) {
    const start = body.indexOf(delimiter, at);
    if (start < 0) break;
    const headersStart = start + delimiter.length + CRLF.length;
    const headersEnd = body.indexOf(HEADERS_END, headersStart);
    if (!body.subarray(start + delimiter.length, headersStart).equals(CRLF) || headersEnd < 0) break;
    const headers = body.subarray(headersStart, headersEnd).toString('latin1');
    const quoted = headers.replace(/^(content-disposition:.*)$/gim, (line: string) =>
      line.replace(EXTENDED_FILENAME, '').replace(BARE_PARAM, (_m, space: string, name: string, value: string) => `;${space}${name}="${value.trim()}"`),
    );
    pieces.push(body.subarray(at, headersStart), Buffer.from(quoted, 'latin1'));
    changed ||= quoted !== headers;
    at = headersEnd;
  }
  if (!changed) return null;
  pieces.push(body.subarray(at));
  return Buffer.concat(pieces);
}
