import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from 'vitest';
import { createDb, type DbHandle } from '../../db/client';
import { parseSimUsers } from '../../worker/registry/sim-state';
import { startSimulator, type Simulator } from '../../worker/registry/simulator';
import { databaseUrl } from '../helpers/db';
import { makeSubmission } from '../helpers/factories';
import { buildDist, deploymentEnv, spawnGateway, stopGateway, webSession, type GatewayProcess } from '../helpers/gateway-processes';
import { csvFile, HEADER } from '../helpers/import-files';
import { buildRelease, hasRelease, RELEASE, RELEASE_LAST_MIGRATION, runReleaseCli, type BuiltRelease } from '../helpers/old-release';
import { PASSWORD } from '../helpers/web';
import { waitFor } from '../helpers/worker';

// Issue 34's upgrade path: the landed release this work starts from (RELEASE), built from the
// git history, creates a database and stores through its own API and tools what a workshop's
// gateway holds after months (sent, failed, queued and held records, imports committed and
// staged, mappings, a text rule, users, registry credentials); it stops, and this version
// starts on the same database. Every answer the release gave is given again, the queue is sent
// once, and then the release runs again beside this version (a rolling upgrade): both servers
// answer reads and writes, and a worker of each sends without sending anything twice.

const runs = hasRelease(RELEASE, 'tests/integration/upgrade-from-release.test.ts');

const EMAIL = 'operator@service.ro';
let release: BuiltRelease;
let sim: Simulator;
let db: DbHandle;
let dbName: string;
let env: Record<string, string>;
const processes: GatewayProcess[] = [];
const keys = { a: '', b: '' };
/** What the release answered for each read, replayed against this version. */
const answers = new Map<string, unknown>();
const ids = { sent: [] as number[], error: 0, queued: [] as number[], ownCredentials: 0, needsMapping: 0, needsData: 0, committedByCurrent: [] as number[] };
const batches = { committed: 0, staged: 0 };

const start = async (kind: 'server' | 'worker', name: string, version: 'release' | 'current') => {
  const p = await spawnGateway(kind, name, env, version === 'release' ? release.root : undefined);
  processes.push(p);
  return p;
};

/** The migrations of a checkout (this one, or the release's), in order. */
function journalTags(root = join(import.meta.dirname, '..', '..')): string[] {
  const journal = JSON.parse(readFileSync(join(root, 'db', 'migrations', 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  return journal.entries.map((e) => e.tag);
}

const vinOf = (prefix: string, i: number) => `WDB1234561${prefix}${String(i).padStart(6, '0')}`;

function api(base: string, key: string) {
  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  };
  return {
    get: (path: string) => request('GET', path),
    post: (path: string, body: unknown) => request('POST', path, body),
    async submit(body: unknown, expected: string) {
      const res = await request('POST', '/v1/prezentari', body);
      expect(res.body, JSON.stringify(res.body)).toMatchObject({ status: expected });
      return res.body.submission_id as number;
    },
    async upload(rows: unknown[][]) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(csvFile([[...HEADER], ...(rows as never[][])]))]), 'prestatii.csv');
      const res = await fetch(`${base}/v1/import`, { method: 'POST', body: form, headers: { 'X-API-Key': key }, signal: AbortSignal.timeout(15_000) });
      const answer = (await res.json()) as { batch_id: number; status: string };
      expect(res.status, JSON.stringify(answer)).toBe(201);
      // The release stages in the request (`staged`); this version queues the file for its stager.
      await waitFor(async () => ((await request('GET', `/v1/import/${answer.batch_id}`)).body.status === 'staged' ? true : undefined), 30_000, 'the upload to be staged');
      return answer.batch_id;
    },
    async preview(batchId: number) {
      return (await request('GET', `/v1/import/${batchId}/preview`)).body as { n_to_commit: number; n_records?: number; rows_hash: string };
    },
    /** Commits what `previewed` (this server's preview, or another's) showed; answers the commit. */
    async confirm(batchId: number, previewed: { n_to_commit: number; rows_hash: string }) {
      return request('POST', `/v1/import/${batchId}/commit`, { n_confirmed: previewed.n_to_commit, rows_hash: previewed.rows_hash });
    },
    async commit(batchId: number, expected: number, previewed?: { n_to_commit: number; rows_hash: string }) {
      const preview = previewed ?? (await this.preview(batchId));
      expect(preview.n_to_commit).toBe(expected);
      const res = await this.confirm(batchId, preview);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
  };
}

const importRows = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => [vinOf(prefix, i), `B${i}UPG`, '14.03.2025', null, 120_000 + i, 'OE-3', 'Revizie']);

async function statusOf(id: number): Promise<string> {
  const [row] = await db.sql<{ status: string }[]>`SELECT status FROM submissions WHERE id = ${id}`;
  return row!.status;
}

async function waitStatus(list: number[], status: string, what: string) {
  await waitFor(async () => ((await Promise.all(list.map(statusOf))).every((s) => s === status) ? true : undefined), 30_000, what);
}

/** Every VIN the registry received, with how many times: each must be there once. */
function receivedVins(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { record } of sim.state.records) counts.set(record.vin, (counts.get(record.vin) ?? 0) + 1);
  return counts;
}

/** The reads a client makes, through `base`: every record, the lists, the mappings, the imports, each account. */
async function reads(base: string): Promise<Map<string, unknown>> {
  const ofA = [
    ...[...ids.sent, ids.error, ...ids.queued, ids.needsMapping, ids.needsData].map((id) => `/v1/prezentari/${id}`),
    '/v1/prezentari?limit=100',
    '/v1/mapari',
    '/v1/mapari/pending',
    '/v1/reguli-text',
    `/v1/import/${batches.committed}`,
    `/v1/import/${batches.staged}`,
    `/v1/import/${batches.staged}/preview`,
    `/v1/import/${batches.staged}/column-mapping`,
    '/v1/ping',
  ];
  const ofB = [`/v1/prezentari/${ids.ownCredentials}`, '/v1/prezentari?limit=100', '/v1/ping'];
  const out = new Map<string, unknown>();
  for (const [account, paths] of [
    ['a', ofA],
    ['b', ofB],
  ] as const) {
    for (const path of paths) {
      const res = await api(base, keys[account]).get(path);
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      // The moment of the answer is no stored fact.
      if (path === '/v1/ping') delete res.body.ts;
      out.set(`${account} ${path}`, res.body);
    }
  }
  return out;
}

describe.skipIf(!runs)(`an upgrade from release ${RELEASE}`, () => {
  beforeAll(async () => {
    buildDist();
    release = buildRelease(RELEASE);
    sim = await startSimulator({ users: parseSimUsers('demo:demo,alt:secret') });
    // An empty database: the release creates its schema itself, as on its first start.
    dbName = `upgrade_${randomBytes(5).toString('hex')}`;
    const admin = postgres(inject('adminDatabaseUrl'), { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    await admin.end();
    db = createDb(databaseUrl(dbName), { max: 2 });
    env = deploymentEnv(databaseUrl(dbName), sim.url, { GATEWAY_WORKER_CONCURRENCY: '2' });
  }, 60_000);

  afterAll(async () => {
    for (const p of processes) await stopGateway(p);
    await db?.close();
    await sim?.close();
    if (dbName) {
      const admin = postgres(inject('adminDatabaseUrl'), { max: 1, onnotice: () => {} });
      await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
    release?.remove();
  }, 60_000);

  const showOutput = () =>
    onTestFailed(() => {
      for (const p of processes) console.log(`--- ${p.name} (${p.running() ? 'running' : 'ended'})\n${p.output().slice(-3000)}`);
    });

  it('the release creates its database and stores a workshop’s mix through its API and tools', { timeout: 120_000 }, async () => {
    showOutput();
    // The migrations the compatibility check (tests/unit/migrations-release-compatible.test.ts) counts as the release's.
    expect(journalTags(release.root).at(-1)).toBe(RELEASE_LAST_MIGRATION);
    // The release's own tools, as its README had the operator run them.
    const [accountA, accountB] = await Promise.all(['Service Unu', 'Service Doi'].map((name) => runReleaseCli(release, 'accounts', ['create', '--name', name], env)));
    [keys.a, keys.b] = await Promise.all([
      runReleaseCli(release, 'keys', ['create', '--account', accountA!, '--name', 'atelier'], env),
      runReleaseCli(release, 'keys', ['create', '--account', accountB!], env),
      runReleaseCli(release, 'users', ['create', '--account', accountA!, '--email', EMAIL], env, `${PASSWORD}\n`),
    ]);

    const [server, worker] = await Promise.all([start('server', 'release-server', 'release'), start('worker', 'release-worker', 'release')]);
    const a = api(server.url, keys.a);
    const b = api(server.url, keys.b);
    expect((await a.post('/v1/conturi/reg-creds', { username: 'demo', password: 'demo' })).status).toBe(200);
    expect((await a.post('/v1/mapari', { cod_op_service: 'REV-A', cod_prestatie: 'OE-3' })).status).toBe(200);
    expect((await a.post('/v1/reguli-text', { pattern: 'schimb ulei', cod_prestatie: 'OE-1' })).status).toBeLessThan(300);

    // Sent by the release's worker: a registry code, a mapped workshop code, a text rule.
    ids.sent.push(await a.submit(makeSubmission({ vin: vinOf('S', 1) }), 'queued'));
    ids.sent.push(await a.submit(makeSubmission({ vin: vinOf('S', 2), prestatii: [{ cod_op_service: 'REV-A', denumire: 'Revizie' }] }), 'queued'));
    ids.sent.push(await a.submit(makeSubmission({ vin: vinOf('S', 3), prestatii: [{ cod_op_service: 'SU-1', denumire: 'Schimb ulei motor' }] }), 'queued'));
    await waitStatus(ids.sent, 'sent', 'the release to send');
    // Refused by the registry once: an error the workshop has to correct.
    sim.state.setFaults({ send: { status: 422, times: 1, cod: 'CONTINUT_INVALID', mesaj: 'Refuzat' } });
    ids.error = await a.submit(makeSubmission({ vin: vinOf('E', 1) }), 'queued');
    await waitStatus([ids.error], 'error', 'the refusal');
    await stopGateway(worker, 'SIGTERM');

    // Left in the queue when the release stops: the account's credentials, or the submission's own.
    for (let i = 1; i <= 4; i++) ids.queued.push(await a.submit(makeSubmission({ vin: vinOf('A', i) }), 'queued'));
    ids.ownCredentials = await b.submit(makeSubmission({ vin: vinOf('A', 5), reg_credentials: { username: 'alt', password: 'secret' } }), 'queued');
    ids.needsMapping = await a.submit(
      makeSubmission({ vin: vinOf('M', 1), prestatii: [{ cod_op_service: 'REV-NOU', denumire: 'Revizie nouă' }], on_unmapped_error: false }),
      'needs_mapping',
    );
    ids.needsData = await a.submit(makeSubmission({ vin: vinOf('D', 1), prestatii: [{ cod_prestatie: 'R-ODO' }] }), 'needs_data');

    batches.committed = await a.upload(importRows('F', 3));
    await a.commit(batches.committed, 3);
    ids.queued.push(...(await db.sql<{ id: string }[]>`SELECT id FROM submissions WHERE batch_id = ${batches.committed} ORDER BY id`).map((r) => Number(r.id)));
    expect(ids.queued).toHaveLength(7);
    batches.staged = await a.upload(importRows('J', 2));

    for (const [path, body] of await reads(server.url)) answers.set(path, body);
    const web = webSession(server.url, '198.51.100.20');
    expect((await web.login(EMAIL, PASSWORD)).status).toBe(303);
    expect((await web.get('/')).status).toBe(200);
    await stopGateway(server, 'SIGTERM');
    expect((await server.exited).code).toBe(0);
    const queued = [...ids.queued, ids.ownCredentials];
    expect(await Promise.all(queued.map(statusOf))).toEqual(queued.map(() => 'queued'));
  });

  it('this version starts on that database, answers every read as the release did, and sends the queue once', { timeout: 120_000 }, async () => {
    showOutput();
    const server = await start('server', 'current-server', 'current');
    const migrated = (await db.sql<{ tag: string }[]>`SELECT tag FROM gateway_migrations`).map((r) => r.tag);
    expect(migrated.sort()).toEqual(journalTags().sort());

    // Every answer the release gave, given again: this version may add fields, never lose or change one.
    const now = await reads(server.url);
    for (const [path, before] of answers) expect(now.get(path), path).toMatchObject(before as object);

    // The release's user signs in to this version's dashboard and finds the records and mappings.
    const web = webSession(server.url, '198.51.100.21');
    expect((await web.login(EMAIL, PASSWORD)).status).toBe(303);
    const queue = await (await web.get('/?vedere=toate')).text();
    for (const vin of [vinOf('S', 1), vinOf('E', 1), vinOf('A', 1), vinOf('M', 1), vinOf('D', 1)]) expect(queue).toContain(vin);
    expect(await (await web.get('/mapari')).text()).toContain('REV-A');
    expect((await web.get(`/import/${batches.staged}`)).status).toBe(200);

    // This version's worker sends what the release left queued, with the credentials it stored.
    const sentBefore = sim.state.records.length;
    await start('worker', 'current-worker', 'current');
    await waitStatus([...ids.queued, ids.ownCredentials], 'sent', 'the queue left by the release to be sent');
    const a = api(server.url, keys.a);
    await a.commit(batches.staged, 2);
    const staged = (await db.sql<{ id: string }[]>`SELECT id FROM submissions WHERE batch_id = ${batches.staged}`).map((r) => Number(r.id));
    ids.committedByCurrent.push(...staged);
    // A mapping saved now releases the record the release held for it.
    expect((await a.post('/v1/mapari', { cod_op_service: 'REV-NOU', cod_prestatie: 'OE-3' })).status).toBe(200);
    await waitStatus([...staged, ids.needsMapping], 'sent', 'the staged import and the mapped record to be sent');

    expect(sim.state.records.length - sentBefore).toBe(ids.queued.length + 1 + staged.length + 1);
    expect(sim.state.records.find((r) => r.record.vin === vinOf('A', 5))?.username).toBe('alt');
    expect([...receivedVins()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(sim.state.duplicates()).toBe(0);
    expect(await statusOf(ids.error)).toBe('error');
    expect(await statusOf(ids.needsData)).toBe('needs_data');
  });

  it('the release and this version serve together on the upgraded database (a rolling upgrade)', { timeout: 120_000 }, async () => {
    showOutput();
    const migrations = await db.sql`SELECT tag, hash FROM gateway_migrations ORDER BY tag`;
    const current = processes.find((p) => p.name === 'current-server' && p.running())!;
    const old = await start('server', 'release-server-2', 'release');
    await start('worker', 'release-worker-2', 'release');
    // The release found every migration it knows applied: it changed nothing of this version's.
    expect(await db.sql`SELECT tag, hash FROM gateway_migrations ORDER BY tag`).toEqual(migrations);

    // What this version wrote and sent alone, read by the release (as after a rollback).
    const back = api(old.url, keys.a);
    for (const id of [...ids.committedByCurrent, ids.needsMapping]) expect((await back.get(`/v1/prezentari/${id}`)).body).toMatchObject({ submission_id: id, status: 'sent' });
    expect((await back.get(`/v1/import/${batches.staged}`)).body).toMatchObject({ status: 'committed' });

    const servers = { release: old.url, current: current.url };
    const written: number[] = [];
    // Writes through each, read through the other.
    for (const [writer, reader] of [
      ['release', 'current'],
      ['current', 'release'],
    ] as const) {
      const w = api(servers[writer], keys.a);
      const r = api(servers[reader], keys.a);
      for (let i = 1; i <= 4; i++) {
        const id = await w.submit(makeSubmission({ vin: vinOf(writer === 'release' ? 'R' : 'C', i) }), 'queued');
        written.push(id);
        const read = await r.get(`/v1/prezentari/${id}`);
        expect(read.status).toBe(200);
        expect(read.body).toMatchObject({ submission_id: id });
      }
      expect((await w.post('/v1/mapari', { cod_op_service: `OP-${writer.toUpperCase()}`, cod_prestatie: 'OE-2' })).status).toBe(200);
      expect(((await r.get('/v1/mapari')).body.items as Array<{ cod_op_service: string }>).map((m) => m.cod_op_service)).toContain(`OP-${writer.toUpperCase()}`);
      // An import uploaded and previewed through one, committed through the other: a file of
      // one line per visit hashes alike on both versions.
      const batch = await w.upload(importRows(writer === 'release' ? 'K' : 'L', 2));
      await r.commit(batch, 2, await w.preview(batch));
      written.push(...(await db.sql<{ id: string }[]>`SELECT id FROM submissions WHERE batch_id = ${batch}`).map((row) => Number(row.id)));
      // Signed in through one version, the same session reads the dashboard of the other.
      const web = webSession(servers[writer], '198.51.100.22');
      expect((await web.login(EMAIL, PASSWORD)).status).toBe(303);
      const page = await web.at(servers[reader]).get('/?vedere=toate');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(vinOf(writer === 'release' ? 'R' : 'C', 1));
    }
    expect(written).toHaveLength(12);

    // A service visit of two lines, staged by this version (one record): its preview's rows_hash
    // covers the grouping, so the release, which would commit a submission per line, refuses
    // this version's preview as stale, and this version refuses the release's; previewed and
    // committed through this version, it is one record.
    const visitVin = vinOf('V', 1);
    const throughCurrent = api(servers.current, keys.a);
    const throughRelease = api(servers.release, keys.a);
    const visitBatch = await throughCurrent.upload([
      [visitVin, 'B9UPG', '14.03.2025', null, 150_000, 'OE-3', 'Revizie'],
      [visitVin, 'B9UPG', '14.03.2025', null, 150_000, 'OE-2', 'Schimb ulei'],
    ]);
    const preview = await throughCurrent.preview(visitBatch);
    expect(preview).toMatchObject({ n_to_commit: 2, n_records: 1 });
    const oldPreview = await throughRelease.preview(visitBatch);
    expect(oldPreview.n_to_commit).toBe(2);
    for (const [through, previewed] of [
      [throughRelease, preview],
      [throughCurrent, oldPreview],
    ] as const) {
      const crossed = await through.confirm(visitBatch, previewed);
      expect(crossed.status, JSON.stringify(crossed.body)).toBe(409);
      expect(crossed.body).toMatchObject({ cod: 'IMPORT_CONFIRMARE_HASH' });
    }
    expect(await db.sql`SELECT id FROM submissions WHERE batch_id = ${visitBatch}`).toEqual([]);
    await throughCurrent.commit(visitBatch, 2);
    const perVisit = (await db.sql<{ id: string }[]>`SELECT id FROM submissions WHERE batch_id = ${visitBatch}`).map((row) => Number(row.id));
    expect(perVisit).toHaveLength(1);

    await waitStatus([...written, ...perVisit], 'sent', 'the writes through both versions to be sent');
    expect(sim.state.records.filter((r) => r.record.vin === visitVin).map((r) => r.record.prestatii.length)).toEqual([2]);
    expect([...receivedVins()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(sim.state.duplicates()).toBe(0);
    // Both versions were serving: each answered a health check after the writes.
    for (const url of Object.values(servers)) expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
