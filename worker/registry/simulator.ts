import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { REGISTRY_TOKEN_TTL_S } from '../../src/domain/registry-token';
import { createSimState, SentRecord, SimFaults, type SimState } from './sim-state';

/**
 * The simulated registry: speaks ../shared/registry-protocol.md with its literal paths and
 * field names (deliberately not the client's protocol module, so a client that drifts from
 * the document fails here). Fault injection lives on /_sim/* only.
 */
export interface Simulator {
  url: string;
  port: number;
  state: SimState;
  /** Answers every send held by `holdSends`. */
  release(): void;
  close(): Promise<void>;
}

type Answer = { status: number; body?: unknown } | 'drop';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Waits out the injected latency, counted from the request's arrival, not from when its handling began. */
const untilLatency = (arrived: number, latencyMs: number) => (latencyMs > 0 ? sleep(latencyMs - (performance.now() - arrived)) : undefined);

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return Symbol.for('invalid-json');
  }
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

export async function startSimulator(options: { port?: number; host?: string; users: Map<string, string>; faults?: Partial<SimFaults> }): Promise<Simulator> {
  const state = createSimState(options.users);
  if (options.faults) state.setFaults(options.faults);
  let held: Array<() => void> = [];
  const release = () => {
    const waiting = held;
    held = [];
    for (const resume of waiting) resume();
  };

  async function control(method: string, path: string, url: URL, req: IncomingMessage): Promise<Answer> {
    if (method === 'GET' && path === '/_sim/state') {
      return {
        status: 200,
        body: {
          counters: state.counters,
          records: state.records,
          duplicates: state.duplicates(),
          maxConcurrentSends: Object.fromEntries(state.maxConcurrentSends),
          activeTokens: state.activeTokens(),
          heldSends: held.length,
          faults: state.faults,
        },
      };
    }
    if (method !== 'POST') return { status: 405 };
    if (path === '/_sim/faults') {
      const parsed = SimFaults.partial().safeParse(await readJson(req));
      if (!parsed.success) return { status: 400, body: { mesaj: parsed.error.message } };
      state.setFaults(parsed.data);
      return { status: 200, body: state.faults };
    }
    if (path === '/_sim/reset') {
      release();
      state.reset(url.searchParams.get('records') === '1');
      return { status: 200, body: state.faults };
    }
    if (path === '/_sim/expire-tokens') {
      state.expireTokens();
      return { status: 200, body: { expired: true } };
    }
    if (path === '/_sim/release') {
      const n = held.length;
      release();
      return { status: 200, body: { released: n } };
    }
    return { status: 404 };
  }

  async function registry(method: string, path: string, url: URL, req: IncomingMessage, arrived: number): Promise<Answer> {
    if (method === 'POST' && path === '/api/auth/login') {
      await untilLatency(arrived, state.faults.latencyMs);
      const body = (await readJson(req)) as Record<string, unknown> | undefined;
      const fault = state.takeFault('login');
      if (fault) return fault.status === 0 ? 'drop' : { status: fault.status, body: { cod: fault.cod ?? 'EROARE', mesaj: fault.mesaj ?? 'Eroare simulată' } };
      const token = state.login(str(body?.username), str(body?.password));
      if (!token) return { status: 401, body: { cod: 'AUTENTIFICARE_ESUATA', mesaj: 'Utilizator sau parolă greșită' } };
      return { status: 200, body: { token, expiresIn: REGISTRY_TOKEN_TTL_S } };
    }
    const username = state.userOf(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]);
    if (method === 'POST' && path === '/api/prezentari' && username) {
      // Counted for the whole answer, latency included: what the registry would feel.
      const n = (state.sendsInFlight.get(username) ?? 0) + 1;
      state.sendsInFlight.set(username, n);
      state.maxConcurrentSends.set(username, Math.max(n, state.maxConcurrentSends.get(username) ?? 0));
      try {
        // The body is read while the latency runs; it is checked and stored once it has passed.
        const body = readJson(req);
        body.catch(() => {}); // a failed read is reported where it is awaited, below
        await untilLatency(arrived, state.faults.latencyMs);
        return await send(username, await body);
      } finally {
        state.sendsInFlight.set(username, (state.sendsInFlight.get(username) ?? 1) - 1);
      }
    }
    await untilLatency(arrived, state.faults.latencyMs);
    if (!username) {
      state.counters.refusedTokens += 1;
      return { status: 401, body: { cod: 'TOKEN_INVALID', mesaj: 'Token expirat sau invalid' } };
    }
    if (method === 'GET' && path === '/api/nomenclator/prestatii') {
      state.counters.nomenclatorCalls += 1;
      return { status: 200, body: state.nomenclator };
    }
    if (method === 'GET' && path === '/api/prezentari') {
      const fault = state.takeFault('list');
      if (fault) return fault.status === 0 ? 'drop' : { status: fault.status, body: { cod: fault.cod ?? 'EROARE', mesaj: fault.mesaj ?? 'Eroare simulată' } };
      if (url.searchParams.get('status') !== 'FINALIZATA') return { status: 200, body: [] };
      const list = state.finalised(username, url.searchParams.get('dataStart') ?? '', url.searchParams.get('dataEnd') ?? '9999-12-31');
      const body = list.map(({ id, record: r }) => ({
        id,
        vin: r.vin,
        nrInmatriculare: r.nrInmatriculare,
        dataPrestatie: r.dataPrestatie,
        odometruFinal: r.odometruFinal,
        prestatii: r.prestatii.map((p) => ({ codPrestatie: p.codPrestatie })),
      }));
      return { status: 200, body };
    }

    return { status: 404, body: { cod: 'NEGASIT', mesaj: 'Cale necunoscută' } };
  }

  async function send(username: string, raw: unknown): Promise<Answer> {
    const fault = state.takeFault('send');
    if (fault?.status === 0) return 'drop';
    if (fault) {
      state.counters.refusedSends += 1;
      return { status: fault.status, body: { cod: fault.cod ?? (fault.status < 500 ? 'CONTINUT_INVALID' : 'EROARE_INTERNA'), mesaj: fault.mesaj ?? 'Eroare simulată' } };
    }
    const parsed = SentRecord.safeParse(raw);
    if (!parsed.success) {
      state.counters.refusedSends += 1;
      const mesaj = parsed.error.issues.map((i) => `${i.path.join('.') || '(corp)'}: ${i.message}`).join('; ');
      return { status: 400, body: { cod: 'CONTINUT_INVALID', mesaj } };
    }
    // Stored first, answered later: exactly the case where a client that gives up or dies
    // cannot know whether the registry has the record.
    const stored = state.store(username, parsed.data);
    if (state.faults.sendDelayMs > 0) await sleep(state.faults.sendDelayMs);
    if (state.faults.holdSends) await new Promise<void>((resume) => held.push(resume));
    return { status: 201, body: { id: stored.id, status: 'FINALIZATA' } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const arrived = performance.now();
    const url = new URL(req.url ?? '/', 'http://sim');
    const method = req.method ?? 'GET';
    let answer: Answer;
    if (url.pathname.startsWith('/_sim/')) {
      answer = await control(method, url.pathname, url, req);
    } else if (!req.headers['user-agent']) {
      // The real registry's firewall drops calls without a User-Agent.
      state.counters.refusedWithoutUserAgent += 1;
      answer = { status: 403, body: { cod: 'USER_AGENT_LIPSA', mesaj: 'Cerere fără User-Agent' } };
    } else {
      state.userAgents.add(req.headers['user-agent']);
      answer = await registry(method, url.pathname, url, req, arrived);
    }
    if (answer === 'drop') {
      req.socket.destroy();
      return;
    }
    if (answer.body === undefined) res.writeHead(answer.status).end();
    else res.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer.body));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    state,
    release,
    close: async () => {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
