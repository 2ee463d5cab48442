import type { RegistryProtocol } from './protocol';
import { toWire, type ListedRecord, type RegistryRecord } from './record';
import { createTransport, TransportError, type Transport } from './transport';

/** The registry answered with a status outside 2xx. `body` is its JSON answer, when it sent one. */
export class RegistryHttpError extends Error {
  constructor(
    readonly status: number,
    readonly latencyMs: number,
    readonly cod: string | null,
    readonly mesaj: string | null,
  ) {
    super(`registry answered HTTP ${status}${mesaj ? `: ${mesaj}` : ''}`);
  }
}

/** No answer: connection refused or reset, timeout, or the caller aborted. The call may have reached the registry. */
export class RegistryNetworkError extends Error {
  constructor(
    message: string,
    readonly latencyMs: number,
    readonly aborted: boolean,
  ) {
    super(message);
  }
}

export interface Timed<T> {
  value: T;
  status: number;
  latencyMs: number;
}

export interface RegistryClient {
  login(credentials: { username: string; password: string }, signal?: AbortSignal): Promise<Timed<{ token: string; expiresIn: number | null }>>;
  nomenclator(token: string, signal?: AbortSignal): Promise<Timed<Array<{ cod: string; denumire: string }>>>;
  send(token: string, record: RegistryRecord, signal?: AbortSignal): Promise<Timed<{ id: string }>>;
  finalised(token: string, range: { dataStart: string; dataEnd: string }, signal?: AbortSignal): Promise<Timed<ListedRecord[]>>;
}

export interface RegistryClientOptions {
  baseUrl: string;
  userAgent: string;
  timeoutMs: number;
  protocol: RegistryProtocol;
  transport?: Transport;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null;
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export function createRegistryClient(options: RegistryClientOptions): RegistryClient {
  const { protocol: p } = options;
  const transport = options.transport ?? createTransport();
  const base = options.baseUrl.replace(/\/+$/, '');

  async function call(method: 'GET' | 'POST', path: string, init: { token?: string; body?: unknown; query?: Record<string, string>; signal?: AbortSignal }) {
    const url = new URL(base + path);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
    // The registry's firewall drops calls without a User-Agent: every call carries one.
    const headers: Record<string, string> = { 'User-Agent': options.userAgent, Accept: 'application/json' };
    if (init.token) headers.Authorization = `Bearer ${init.token}`;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    let res: { status: number; text: string };
    try {
      const body = init.body === undefined ? undefined : JSON.stringify(init.body);
      res = await transport(url, { method, headers, body, timeoutMs: options.timeoutMs, signal: init.signal });
    } catch (error) {
      const aborted = error instanceof TransportError && error.aborted;
      throw new RegistryNetworkError(`${method} ${path}: ${error instanceof Error ? error.message : String(error)}`, elapsed(), aborted);
    }
    const raw = res.text;
    let body: unknown = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    if (res.status < 200 || res.status > 299) {
      const b = obj(body);
      throw new RegistryHttpError(res.status, elapsed(), text(b[p.refused.cod]), text(b[p.refused.mesaj]) ?? (typeof body === 'string' ? body.slice(0, 500) : null));
    }
    return { body, status: res.status, latencyMs: elapsed() };
  }

  /** A 2xx answer without the fields the protocol promises is a registry failure, not ours. */
  function malformed(status: number, latencyMs: number, what: string): never {
    throw new RegistryHttpError(502, latencyMs, null, `unexpected answer (HTTP ${status}): ${what}`);
  }

  return {
    async login(credentials, signal) {
      const r = await call('POST', p.paths.login, { body: { [p.login.username]: credentials.username, [p.login.password]: credentials.password }, signal });
      const b = obj(r.body);
      const token = text(b[p.login.token]);
      if (!token) malformed(r.status, r.latencyMs, 'login without a token');
      return { value: { token, expiresIn: num(b[p.login.expiresIn]) }, status: r.status, latencyMs: r.latencyMs };
    },
    async nomenclator(token, signal) {
      const r = await call('GET', p.paths.nomenclator, { token, signal });
      if (!Array.isArray(r.body)) malformed(r.status, r.latencyMs, 'nomenclator is not a list');
      const value = r.body
        .map((e) => ({ cod: text(obj(e)[p.nomenclator.cod])?.trim().toUpperCase() ?? '', denumire: text(obj(e)[p.nomenclator.denumire])?.trim() ?? '' }))
        .filter((e) => e.cod && e.denumire);
      return { value, status: r.status, latencyMs: r.latencyMs };
    },
    async send(token, record, signal) {
      const r = await call('POST', p.paths.send, { token, body: toWire(record, p), signal });
      const id = text(obj(r.body)[p.accepted.id]);
      // Accepted but unreadable: the record may be in the registry, so the next attempt
      // reconciles before it sends again, exactly as after a timeout.
      if (!id) throw new RegistryNetworkError(`POST ${p.paths.send}: HTTP ${r.status} without ${p.accepted.id}`, r.latencyMs, false);
      return { value: { id }, status: r.status, latencyMs: r.latencyMs };
    },
    async finalised(token, range, signal) {
      const query = { [p.query.status]: p.finalisedStatus, [p.query.dataStart]: range.dataStart, [p.query.dataEnd]: range.dataEnd };
      const r = await call('GET', p.paths.finalised, { token, query, signal });
      if (!Array.isArray(r.body)) malformed(r.status, r.latencyMs, 'finalised list is not a list');
      const f = p.record;
      const value = r.body.map((e): ListedRecord => {
        const o = obj(e);
        const items = Array.isArray(o[f.prestatii]) ? (o[f.prestatii] as unknown[]) : [];
        return {
          id: text(o[p.accepted.id]) ?? '',
          vin: text(o[f.vin]) ?? '',
          dataPrestatie: text(o[f.dataPrestatie]) ?? '',
          odometruFinal: num(o[f.odometruFinal]),
          codes: items.map((i) => text(obj(i)[f.codPrestatie]) ?? '').filter(Boolean),
        };
      });
      return { value, status: r.status, latencyMs: r.latencyMs };
    },
  };
}
