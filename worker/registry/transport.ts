import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface RawResponse {
  status: number;
  text: string;
}

export class TransportError extends Error {
  constructor(
    message: string,
    readonly timedOut: boolean,
    readonly aborted: boolean,
  ) {
    super(message);
  }
}

export type Transport = (url: URL, init: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number; signal?: AbortSignal }) => Promise<RawResponse>;

/**
 * One HTTP exchange over node:http(s) with keep-alive connections. Chosen over fetch: at
 * hundreds of sends a second, fetch's streams and per-call signals cost more CPU than the
 * registry's own latency leaves room for (bench/worker.ts).
 */
export function createTransport(): Transport {
  const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
  return (url, init) =>
    new Promise<RawResponse>((resolve, reject) => {
      if (init.signal?.aborted) return reject(new TransportError('aborted', false, true));
      const secure = url.protocol === 'https:';
      const headers = init.body === undefined ? init.headers : { ...init.headers, 'Content-Length': String(Buffer.byteLength(init.body)) };
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        init.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const onResponse = (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => finish(() => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') })));
        res.on('error', (error) => finish(() => reject(new TransportError(String(error), false, false))));
      };
      const req = (secure ? httpsRequest : httpRequest)(url, { method: init.method, headers, agent: agents[secure ? 'https:' : 'http:'] }, onResponse);
      const timer = setTimeout(() => {
        finish(() => reject(new TransportError(`no answer within ${init.timeoutMs} ms`, true, false)));
        req.destroy();
      }, init.timeoutMs);
      const onAbort = () => {
        finish(() => reject(new TransportError('aborted', false, true)));
        req.destroy();
      };
      init.signal?.addEventListener('abort', onAbort, { once: true });
      req.on('error', (error: NodeJS.ErrnoException) => finish(() => reject(new TransportError(error.code ?? error.message, false, false))));
      req.end(init.body);
    });
}
