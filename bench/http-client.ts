import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';

/**
 * A lean HTTP client for the benchmarks' request loops: node:http on kept-alive sockets, as
 * load generators (autocannon, wrk) do. A workshop's client runs on its own machine; here it
 * shares the two cores with the server and PostgreSQL, and `fetch` (undici) spent about as
 * much CPU per request as the server itself, so its cost was measured as if it were ours.
 */
export function createBenchClient(origin: string, sockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const url = new URL(origin);
  /** POSTs `body` as it is (its type among `headers`); resolves with the status and the answer's text. */
  const post = (path: string, headers: Record<string, string>, body: Buffer | string): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      const req = request({ agent, host: url.hostname, port: url.port, path, method: 'POST', headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    post,
    /** POSTs `body` as JSON; resolves with the status and the parsed answer. */
    async postJson(path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: unknown }> {
      const answer = await post(path, { ...headers, 'Content-Type': 'application/json' }, JSON.stringify(body));
      return { status: answer.status, body: JSON.parse(answer.text) };
    },
    close: () => agent.destroy(),
  };
}

/** A multipart body of one file part, as a client sending a file from disk streams it. */
export function multipart(file: Buffer, filename: string, type = 'application/octet-stream'): { body: Buffer; contentType: string } {
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, file, tail]), contentType: `multipart/form-data; boundary=${boundary}` };
}
