import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../helpers/app';
import { useTestDatabase } from '../helpers/db';
import { reservePort } from '../helpers/ports';
import { missingPrograms } from '../helpers/programs';
import { waitFor } from '../helpers/worker';

// The shell examples of README.md and docs/, taken from the pages themselves (so the two cannot
// drift) and run with bash against the built server, as a user following them literally would:
// every ```sh block runs here. They run in a directory of their own that holds the clone's
// package.json, scripts, dist, node_modules and docs as links, so `npm run ...` and
// `docs/examples/...` work as in the clone while the files the examples write (exports, the
// Postman collection) stay out of the repository.

const ROOT = join(import.meta.dirname, '..', '..');
const db = useTestDatabase('all');
let dir: string;

beforeAll(async () => {
  expect(spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT }).status).toBe(0);
  dir = mkdtempSync(join(tmpdir(), 'gateway-readme-'));
  for (const name of ['package.json', 'scripts', 'dist', 'node_modules', 'docs']) symlinkSync(join(ROOT, name), join(dir, name));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The ```sh blocks of a page, in order. */
function shBlocks(page: string): string[] {
  return [...readFileSync(join(ROOT, page), 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The ```sh block of the pages that contains `marker`. */
function docsBlock(marker: string): string {
  const block = PAGES.flatMap(shBlocks).find((b) => b.includes(marker));
  if (!block) throw new Error(`no sh block of README.md or docs/ holds ${marker}`);
  return block;
}

/** The examples' addresses (the server on 3000, the simulated registry on 4010 in the pages) made the test's. */
const onPorts = (script: string, gateway: Gateway) =>
  script.replace(/(localhost|127\.0\.0\.1):3000\b/g, `127.0.0.1:${gateway.port}`).replace(/(localhost|127\.0\.0\.1):4010\b/g, `127.0.0.1:${gateway.simPort}`);

/**
 * `npm run --silent accounts|keys|users -- ...` as package.json runs it, minus the build this
 * file made once: the README's quick start runs the real npm; the other pages' many tool calls
 * would otherwise spend minutes building the same dist/ again on a loaded machine.
 */
const BUILT_TOOLS = `npm() {
  if [ "$1" = run ] && [ "$2" = --silent ]; then
    case "$3" in accounts|keys|users) local tool=$3; shift 3; [ "$1" = -- ] && shift; node "dist/$tool.js" "$@"; return;; esac
  fi
  command npm "$@"
}
`;

interface Gateway {
  port: number;
  simPort: number;
  env: Record<string, string>;
  child: ChildProcess;
  output: () => string;
}

/** The built server, as `npm start` runs it, on a test database and a port of its own. */
async function startGateway(): Promise<Gateway> {
  const [port, simPort] = [await reservePort(), await reservePort()];
  const env = { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/root', DATABASE_URL: db.url, GATEWAY_SECRET_KEY: TEST_SECRET };
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), GATEWAY_SIM_PORT: String(simPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(() => out.includes('Gateway listening') || undefined, 60_000, `the server:\n${out}`);
  return { port, simPort, env, child, output: () => out };
}

/** Runs `script` with bash -e in the examples' directory; what it printed. */
function run(script: string, env: Record<string, string>, timeout = 300_000): string {
  const result = spawnSync('bash', ['-e', '-c', script], { env, encoding: 'utf8', cwd: dir, timeout });
  expect(result.status, `${script}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`).toBe(0);
  return result.stdout;
}

describe.skipIf(missingPrograms('the README examples', { curl: 'curl' }).length > 0)('README examples', () => {
  it('the import flow, run literally: captures its ids, keeps the suggested mapping, commits every row', async () => {
    const gateway = await startGateway();
    try {
      const key = spawnSync(process.execPath, ['dist/keys.js', 'create', '--account', '1'], { cwd: ROOT, env: gateway.env, encoding: 'utf8' }).stdout.trim().split('\n').at(-1)!;
      expect(key).toMatch(/^gw_/);
      const script = docsBlock('/v1/import').replace('BASE=http://127.0.0.1:3000', `BASE=http://127.0.0.1:${gateway.port}`);
      run(script, { ...gateway.env, KEY: key }, 60_000);
      const [batch] = await db.sql<
        { status: string; mapping: { mapping: Record<string, number> } }[]
      >`SELECT status, column_mapping AS mapping FROM import_batches ORDER BY id DESC LIMIT 1`;
      expect(batch!.status).toBe('committed');
      // The partial save kept the suggested columns: every required field is still mapped.
      expect(Object.keys(batch!.mapping.mapping)).toEqual(expect.arrayContaining(['vin', 'nrInm', 'dataPrestatie', 'odometruFinal']));
      const [count] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions`;
      expect(count!.n).toBeGreaterThan(0);
    } finally {
      gateway.child.kill('SIGKILL');
    }
  }, 90_000);

  describe('every sh block of README.md and docs/, in order, page by page', () => {
    let gateway: Gateway;
    /** What the README's quick start leaves in the terminal, as the other pages assume it. */
    const session: Record<string, string> = {};
    beforeAll(async () => {
      gateway = await startGateway();
    }, 90_000);
    afterAll(() => {
      gateway?.child.kill('SIGKILL');
    });

    it("the README's quick start: an account, a key, a user, credentials, a record mapped and sent", () => {
      const [start, ...rest] = shBlocks('README.md');
      // The first block starts the gateway, which this test has done with the built server.
      expect(start!.trim()).toBe('npm ci && npm start');
      const out = run(`${onPorts(rest.join('\n'), gateway)}\necho "SESSION KEY=$KEY ACCOUNT=$ACCOUNT ID=$ID"`, gateway.env);
      const [, key, account, id] = /SESSION KEY=(\S+) ACCOUNT=(\d+) ID=(\d+)/.exec(out)!;
      Object.assign(session, { KEY: key!, ACCOUNT: account! });
      expect(out).toContain(`account ${account}, key gw_`);
      expect(out).toContain('"status":"needs_mapping"');
      expect(out).toContain('"reclasificate":{"queued":1');
      expect(out).toMatch(new RegExp(`"submission_id":${id},"status":"sent"`));
    }, 320_000);

    const pages = PAGES.filter((page) => page !== 'README.md' && shBlocks(page).length > 0);
    it.each(pages)(
      '%s',
      (page) => {
        expect(session.KEY, 'the quick start ran first').toMatch(/^gw_/);
        // The import flow is the test above's, with its own assertions.
        const blocks = shBlocks(page).filter((b) => !b.includes('/v1/import'));
        if (blocks.length === 0) return;
        run(BUILT_TOOLS + onPorts(blocks.join('\n'), gateway), { ...gateway.env, ...session });
      },
      320_000,
    );

    it('every endpoint of the OpenAPI document is in docs/api.md', async () => {
      const doc = (await (await fetch(`http://127.0.0.1:${gateway.port}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
      const page = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
      const missing = Object.entries(doc.paths)
        .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
        .filter((op) => !page.includes(`\`${op}\``));
      expect(missing).toEqual([]);
    });
  });
});
