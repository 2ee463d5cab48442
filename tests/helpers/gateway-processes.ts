import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reservePort } from './ports';
import { TEST_SECRET, UNTHROTTLED } from './app';
import { FAST_WORKER_ENV, waitFor } from './worker';

// The built product (`dist/main.js`, `dist/worker.js`, `dist/stager.js`) run as processes, as a
// deployment runs it: servers without their worker child (GATEWAY_RUN_WORKER=false) and workers
// of their own; a server runs its stager child unless GATEWAY_STAGERS says otherwise.

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * What every process of a test deployment is started with: one database, one master key, the
 * simulated registry, keys required, the client address from X-Forwarded-For (each test client
 * plays another address), a fast password hash, no cost budget or per-second limit of a key
 * (UNTHROTTLED); `extra` adds or overrides.
 */
export function deploymentEnv(databaseUrl: string, registryUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...FAST_WORKER_ENV,
    ...UNTHROTTLED,
    DATABASE_URL: databaseUrl,
    GATEWAY_SECRET_KEY: TEST_SECRET,
    GATEWAY_REGISTRY_URL: registryUrl,
    GATEWAY_REQUIRE_API_KEY: 'true',
    GATEWAY_TRUSTED_PROXIES: '127.0.0.1',
    GATEWAY_SCRYPT_N: '1024',
    GATEWAY_LOG_LEVEL: 'info',
    ...extra,
  };
}

/** scripts/build.mjs, once per test file (it writes each file atomically: two builds at once are safe). */
export function buildDist(): void {
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
}

export interface GatewayProcess {
  name: string;
  child: ChildProcess;
  /** The server's address (servers only). */
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output: () => string;
  running: () => boolean;
}

/**
 * Starts `dist/main.js` (a server, on a free port unless `env.PORT` names one),
 * `dist/worker.js` or `dist/stager.js`, each with a data dir of its own (its logs), and
 * resolves once it started: a server answers /healthz with its own answer, a worker or a
 * stager says so on its output. `root` is the checkout whose dist/ runs: this one, or an
 * earlier release's (old-release.ts).
 */
export async function spawnGateway(kind: 'server' | 'worker' | 'stager', name: string, env: Record<string, string>, root = ROOT): Promise<GatewayProcess> {
  const port = env.PORT ?? String(await reservePort());
  const dataDir = mkdtempSync(join(tmpdir(), `gateway-${name}-`));
  const child = spawn(process.execPath, [`dist/${kind === 'server' ? 'main' : kind}.js`], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      GATEWAY_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      ...env,
      PORT: port,
      ...(kind === 'server' ? { GATEWAY_RUN_WORKER: 'false' } : { GATEWAY_WORKER_ID: name }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  // Its data dir (logs) goes with it, however it ended.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, signal });
    }),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (!running()) throw new Error(`${name} exited during start-up:\n${out}`);
      if (kind === 'worker') return /Worker \S+ sending to/.test(out) || undefined;
      if (kind === 'stager') return /Stager \S+ waiting/.test(out) || undefined;
      const res = await fetch(`${url}/healthz`).catch(() => undefined);
      return (res && 'database' in ((await res.json()) as object)) || undefined;
    },
    // Four processes starting at once on a loaded two-core machine took over 30 s (migrations, JIT).
    60_000,
    `${name} to start`,
  );
  return { name, child, url, exited, output: () => out, running };
}

/** SIGKILL (a crash) or SIGTERM, and waits for the exit; nothing when it has ended already. */
export async function stopGateway(p: GatewayProcess | undefined, signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<void> {
  if (!p?.running()) return;
  p.child.kill(signal);
  await p.exited;
}

/**
 * A dashboard session over fetch: keeps the cookies, signs in with the login form's token.
 * `at(other)` is the same session (its cookies) on another server of the deployment.
 */
export function webSession(base: string, forwardedFor: string, cookies = new Map<string, string>()) {
  async function request(method: string, path: string, form?: Record<string, string>) {
    const headers: Record<string, string> = { 'X-Forwarded-For': forwardedFor, Origin: base };
    if (cookies.size > 0) headers.Cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['Content-Type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${base}${path}`, { method, headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [cookie, value] = pair!.split('=');
      cookies.set(cookie!, value ?? '');
    }
    return res;
  }
  return {
    get: (path: string) => request('GET', path),
    at: (other: string) => webSession(other, forwardedFor, cookies),
    async login(email: string, password: string) {
      const page = await (await request('GET', '/login')).text();
      const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
      return request('POST', '/login', { _csrf: csrf, email, parola: password });
    },
  };
}
