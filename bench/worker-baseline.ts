// The baseline bench:worker measures in the same run (bench/worker.ts starts it as a child
// process, so it warms nothing in the worker's process): the worker's own HTTP transport,
// with no database and no worker logic, logging in once and sending as many records with the
// same concurrency to the same simulator. Prints one JSON line: { "sent", "seconds" }.
import { parseArgs } from 'node:util';
import { createTransport } from '../worker/registry/transport';

async function main() {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, user: { type: 'string' }, sends: { type: 'string' }, concurrency: { type: 'string' } },
    strict: true,
  });
  const [url, user, sends, concurrency] = [values.url!, values.user!, Number(values.sends), Number(values.concurrency)];
  const transport = createTransport();
  const headers = { 'User-Agent': 'bench-baseline', Accept: 'application/json', 'Content-Type': 'application/json' };
  const call = async (path: string, body: unknown, token?: string) => {
    const res = await transport(new URL(url + path), {
      method: 'POST',
      headers: token ? { ...headers, Authorization: `Bearer ${token}` } : headers,
      body: JSON.stringify(body),
      timeoutMs: 30_000,
    });
    if (res.status < 200 || res.status > 299) throw new Error(`${path} answered ${res.status}: ${res.text}`);
    return JSON.parse(res.text) as Record<string, unknown>;
  };

  const started = performance.now();
  const { token } = await call('/api/auth/login', { username: user, password: user });
  let next = 0;
  const slot = async () => {
    for (let i = next++; i < sends; i = next++) {
      const record = {
        vin: `WDB1234569Z${String(i).padStart(6, '0')}`,
        nrInmatriculare: 'B999ZZZ',
        dataPrestatie: '2025-01-01',
        odometruInitial: null,
        odometruFinal: 100_000 + i,
        obs: '',
        prestatii: [{ codPrestatie: 'OE-3', numePrestatie: 'REVIZIE PERIODICĂ', idPrezentare: null }],
        sistemReparat: null,
        status: 'FINALIZATA',
        b64Image: '',
      };
      await call('/api/prezentari', record, String(token));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, slot));
  console.log(JSON.stringify({ sent: sends, seconds: (performance.now() - started) / 1000 }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
