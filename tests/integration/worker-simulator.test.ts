import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRegistryClient, RegistryHttpError, RegistryNetworkError } from '../../worker/registry/client';
import { DEFAULT_PROTOCOL } from '../../worker/registry/protocol';
import { buildRecord } from '../../worker/registry/record';
import { parseSimUsers } from '../../worker/registry/sim-state';
import { startSimulator, type Simulator } from '../../worker/registry/simulator';

let sim: Simulator;
const UA = { 'User-Agent': 'test/1.0' };

const record = (vin = 'WDB1234561A654321') =>
  buildRecord(
    { vin, nrInm: 'B123ABC', dataPrestatie: '2025-03-14', odometruInitial: null, odometruFinal: 154200, prestatii: [{ cod_prestatie: 'OE-3', denumire: '' }], b64Image: '' },
    [{ cod_prestatie: 'OE-3', denumire: 'REVIZIE PERIODICĂ' }],
    DEFAULT_PROTOCOL,
  );
const client = () => createRegistryClient({ baseUrl: sim.url, userAgent: 'test/1.0', timeoutMs: 1_000, protocol: DEFAULT_PROTOCOL });
const raw = (path: string, init: RequestInit = {}) => fetch(sim.url + path, init);

beforeAll(async () => {
  sim = await startSimulator({ users: parseSimUsers('demo:demo') });
});
beforeEach(() => sim.state.reset(true));
afterAll(() => sim.close());

describe('the protocol, as registry-protocol.md gives it', () => {
  it('login, nomenclator, send and the finalised list', async () => {
    const c = client();
    const { value: login } = await c.login({ username: 'demo', password: 'demo' });
    expect(login.expiresIn).toBe(108_000);
    const { value: codes } = await c.nomenclator(login.token);
    expect(codes).toHaveLength(18);
    expect(codes[0]).toEqual({ cod: 'OE-1', denumire: 'REPARAȚIE' });
    const sent = await c.send(login.token, record());
    expect(sent.status).toBe(201);
    const { value: list } = await c.finalised(login.token, { dataStart: '2025-03-14', dataEnd: '2025-03-14' });
    expect(list).toEqual([{ id: sent.value.id, vin: 'WDB1234561A654321', dataPrestatie: '2025-03-14', odometruFinal: 154200, codes: ['OE-3'] }]);
    expect((await c.finalised(login.token, { dataStart: '2025-03-15', dataEnd: '2025-03-31' })).value).toEqual([]);
  });

  it('lists only the records sent with that login', async () => {
    sim.state.users.set('other', 'pw');
    const c = client();
    const a = (await c.login({ username: 'demo', password: 'demo' })).value.token;
    const b = (await c.login({ username: 'other', password: 'pw' })).value.token;
    await c.send(a, record());
    expect((await c.finalised(b, { dataStart: '2025-01-01', dataEnd: '2025-12-31' })).value).toEqual([]);
  });

  it('refuses a wrong password (401), an unknown token (401) and a record with tipPrestatie or another status (400)', async () => {
    const c = client();
    await expect(c.login({ username: 'demo', password: 'nope' })).rejects.toMatchObject({ status: 401 });
    await expect(c.send('forged', record())).rejects.toMatchObject({ status: 401 });
    const { token } = (await c.login({ username: 'demo', password: 'demo' })).value;
    const headers = { ...UA, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const withTip = await raw('/api/prezentari', { method: 'POST', headers, body: JSON.stringify({ ...record(), tipPrestatie: 'X' }) });
    expect(withTip.status).toBe(400);
    const draft = await raw('/api/prezentari', { method: 'POST', headers, body: JSON.stringify({ ...record(), status: 'DRAFT' }) });
    expect(draft.status).toBe(400);
    expect(sim.state.records).toHaveLength(0);
  });

  it('refuses any registry call without a User-Agent, and the client always sends one', async () => {
    // undici adds its own User-Agent to fetch; node:http sends none unless told.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${sim.url}/api/auth/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => resolve(res.statusCode ?? 0));
      req.on('error', reject);
      req.end(JSON.stringify({ username: 'demo', password: 'demo' }));
    });
    expect(status).toBe(403);
    expect(sim.state.counters.refusedWithoutUserAgent).toBe(1);
    await client().login({ username: 'demo', password: 'demo' });
    expect(sim.state.counters.refusedWithoutUserAgent).toBe(1);
  });
});

describe('fault injection on /_sim/*', () => {
  it('login 401 or 5xx, once or always', async () => {
    await raw('/_sim/faults', { method: 'POST', body: JSON.stringify({ login: { status: 503, times: 1 } }) });
    const c = client();
    await expect(c.login({ username: 'demo', password: 'demo' })).rejects.toMatchObject({ status: 503 });
    await expect(c.login({ username: 'demo', password: 'demo' })).resolves.toMatchObject({ status: 200 });
    await raw('/_sim/faults', { method: 'POST', body: JSON.stringify({ login: { status: 401 } }) });
    for (let i = 0; i < 3; i++) await expect(c.login({ username: 'demo', password: 'demo' })).rejects.toMatchObject({ status: 401 });
  });

  it('send 400 with the registry’s reason, 5xx, and a dropped connection that stores nothing', async () => {
    const c = client();
    const { token } = (await c.login({ username: 'demo', password: 'demo' })).value;
    sim.state.setFaults({ send: { status: 400, times: 1, cod: 'VIN', mesaj: 'VIN necunoscut' } });
    const refused = await c.send(token, record()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RegistryHttpError);
    expect(refused).toMatchObject({ status: 400, cod: 'VIN', mesaj: 'VIN necunoscut' });
    sim.state.setFaults({ send: { status: 502, times: 1 } });
    await expect(c.send(token, record())).rejects.toMatchObject({ status: 502 });
    sim.state.setFaults({ send: { status: 0, times: 1 } });
    await expect(c.send(token, record())).rejects.toBeInstanceOf(RegistryNetworkError);
    expect(sim.state.records).toHaveLength(0);
  });

  it('a send delay beyond the client timeout: the record is stored, the client hears nothing', async () => {
    const c = client();
    const { token } = (await c.login({ username: 'demo', password: 'demo' })).value;
    sim.state.setFaults({ sendDelayMs: 1_500 });
    const error = await c.send(token, record()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryNetworkError);
    expect((error as Error).message).toContain('no answer within 1000 ms');
    expect(sim.state.records).toHaveLength(1);
  });

  it('holds sends open until released; expires every token; adds latency; reports its state', async () => {
    const c = client();
    const { token } = (await c.login({ username: 'demo', password: 'demo' })).value;
    await raw('/_sim/faults', { method: 'POST', body: JSON.stringify({ holdSends: true }) });
    const pending = c.send(token, record());
    await new Promise((resolve) => setTimeout(resolve, 100));
    const state = (await (await raw('/_sim/state')).json()) as { heldSends: number; records: unknown[] };
    expect(state).toMatchObject({ heldSends: 1 });
    expect(state.records).toHaveLength(1);
    expect(await (await raw('/_sim/release', { method: 'POST' })).json()).toEqual({ released: 1 });
    await expect(pending).resolves.toMatchObject({ status: 201 });

    await raw('/_sim/expire-tokens', { method: 'POST' });
    await expect(c.send(token, record('WDB1234561A654322'))).rejects.toMatchObject({ status: 401 });

    await raw('/_sim/faults', { method: 'POST', body: JSON.stringify({ latencyMs: 200 }) });
    const t0 = performance.now();
    await c.login({ username: 'demo', password: 'demo' });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
    expect((await raw('/_sim/faults', { method: 'POST', body: JSON.stringify({ latencyMs: -1 }) })).status).toBe(400);
  });
});
