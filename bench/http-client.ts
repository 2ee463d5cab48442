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
  return {
    /** POSTs `body` as JSON; resolves with the status and the parsed answer. */
    postJson(path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: unknown }> {
      const text = JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const req = request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            path,
            method: 'POST',
            headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => {
              try {
                resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
              } catch (err) {
                reject(err);
              }
            });
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(text);
      });
    },
    close: () => agent.destroy(),
  };
}
