import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ROWS } from '../../src/domain/registry-code-column';
import { EXAMPLE_SUBMISSION, FILE_PLACEHOLDER, KEY_PLACEHOLDER } from '../../src/clients/operations';
import { pageExamples, run, startLiveGateway } from '../helpers/integrare';
import { missingPrograms } from '../helpers/programs';

// The integration page's examples, taken from the page itself (so what is tested is what a
// user copies), the key put in, and run with the real interpreters and compiler against a live
// gateway. .ci/run installs them (curl, jq, python3, php-cli + php-curl, mono's mcs).

const ROOT = join(import.meta.dirname, '..', '..');
let gateway: Awaited<ReturnType<typeof startLiveGateway>>;
/** A gateway that stages a few rows first, so an upload is seen `queued` or `staging` before `staged`. */
let slow: Awaited<ReturnType<typeof startLiveGateway>>;
let blocks: Map<string, string>;
let slowBlocks: Map<string, string>;
let dir: string;

/** How each language's program is written to disk and run, with the programs it needs and their Debian packages. */
const RUNNERS: Record<string, { needs: Record<string, string>; file: (kind: string) => string; run: (file: string, cwd: string) => ReturnType<typeof run> }> = {
  curl: { needs: { curl: 'curl', jq: 'jq' }, file: (k) => `${k}.sh`, run: (f, cwd) => run('bash', [f], { cwd }) },
  python: { needs: { python3: 'python3' }, file: (k) => `${k}.py`, run: (f, cwd) => run('python3', [f], { cwd }) },
  javascript: { needs: {}, file: (k) => `${k}.mjs`, run: (f, cwd) => run(process.execPath, [f], { cwd }) },
  php: { needs: { php: 'php-cli php-curl' }, file: (k) => `${k}.php`, run: (f, cwd) => run('php', [f], { cwd }) },
  csharp: {
    needs: {
      mcs: 'mono-mcs libmono-system-net-http4.0-cil libmono-system-runtime-serialization4.0-cil libmono-system-xml-linq4.0-cil',
      mono: 'mono-runtime',
    },
    file: (k) => `${k}.cs`,
    run: async (f, cwd) => {
      const exe = f.replace(/\.cs$/, '.exe');
      const refs = ['System.Net.Http', 'System.Runtime.Serialization', 'System.Xml', 'System.Xml.Linq'].map((r) => `-r:${r}`);
      const compiled = await run('mcs', [...refs, `-out:${exe}`, f], { cwd, timeoutMs: 120_000 });
      if (compiled.status !== 0) return compiled;
      return run('mono', [exe], { cwd });
    },
  },
};

beforeAll(async () => {
  gateway = await startLiveGateway();
  blocks = await pageExamples(gateway.t, await gateway.t.createAccount('Service exemple'));
  slow = await startLiveGateway({ GATEWAY_IMPORT_FIRST_ROWS: '1' });
  slowBlocks = await pageExamples(slow.t, await slow.t.createAccount('Service exemple'));
  dir = mkdtempSync(join(tmpdir(), 'gateway-examples-'));
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await slow?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A language's program as the page shows it, with a fresh account's key, in a directory of its own. */
async function prepare(language: string, kind: 'prezentare' | 'import', edit = (code: string) => code, on = gateway, csv?: string) {
  const code = (on === slow ? slowBlocks : blocks).get(`ex-${language}-${kind}`);
  expect(code, `the page has no ${kind} example in ${language}`).toBeTruthy();
  expect(code).toContain(KEY_PLACEHOLDER);
  expect(code).toContain(on.base);
  const accountId = await on.t.createAccount(`Service ${language}`);
  const cwd = mkdtempSync(join(dir, `${language}-`));
  const file = RUNNERS[language]!.file(kind);
  writeFileSync(join(cwd, file), edit(code!.replace(KEY_PLACEHOLDER, await on.t.createKey(accountId))));
  if (csv === undefined) copyFileSync(join(ROOT, 'docs/examples/prestatii-exemplu.csv'), join(cwd, FILE_PLACEHOLDER));
  else writeFileSync(join(cwd, FILE_PLACEHOLDER), csv);
  return { accountId, run: () => RUNNERS[language]!.run(file, cwd) };
}

// A language whose programs this machine lacks is skipped, saying so (tests/helpers/programs.ts).
const RUNNABLE = Object.keys(RUNNERS).filter((language) => missingPrograms(`the integration page's ${language} examples`, RUNNERS[language]!.needs).length === 0);

describe.each(RUNNABLE)('the %s examples, run as the page shows them', (language) => {
  it('dry run answers queued, then the submission is stored queued', async () => {
    const program = await prepare(language, 'prezentare');
    const out = await program.run();
    expect(out.status, `${out.stdout}\n${out.stderr}`).toBe(0);
    expect(out.stdout).toMatch(/^status_estimat: queued$/m);
    const id = Number(/^submission_id: (\d+)$/m.exec(out.stdout)?.[1]);
    expect(out.stdout).toMatch(/^status: queued$/m);
    const [row] = await gateway.t.ctx.sql<{ account_id: number; status: string }[]>`SELECT account_id, status FROM submissions WHERE id = ${id}`;
    expect(row).toEqual({ account_id: program.accountId, status: 'queued' });
  }, 120_000);

  it('a record the dry run holds stops the program (non-zero exit) before anything is stored', async () => {
    const program = await prepare(language, 'prezentare', (code) => code.replaceAll(EXAMPLE_SUBMISSION.vin, EXAMPLE_SUBMISSION.vin.slice(0, 16)));
    const out = await program.run();
    expect(out.status).not.toBe(0);
    expect(out.stdout).toMatch(/^status_estimat: needs_data$/m);
    expect(out.stdout).toMatch(/^erori: vin - /m);
    const [count] = await gateway.t.ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions WHERE account_id = ${program.accountId}`;
    expect(count!.n).toBe(0);
  }, 120_000);

  it('the import uploads the file, previews it and commits the rows that are ready', async () => {
    const program = await prepare(language, 'import');
    const out = await program.run();
    expect(out.status, `${out.stdout}\n${out.stderr}`).toBe(0);
    const batchId = Number(/^batch_id: (\d+)$/m.exec(out.stdout)?.[1]);
    expect(out.stdout).toMatch(/^status: staged$/m);
    expect(out.stdout).toMatch(/^rows_hash: [0-9a-f]{64}$/m);
    const ready = Number(/^n_to_commit: (\d+)$/m.exec(out.stdout)?.[1]);
    expect(ready).toBeGreaterThan(0);
    expect(out.stdout).toMatch(new RegExp(`^inserted: ${ready}$`, 'm'));
    const [batch] = await gateway.t.ctx.sql<{ status: string; account_id: number }[]>`SELECT status, account_id FROM import_batches WHERE id = ${batchId}`;
    expect(batch).toEqual({ status: 'committed', account_id: program.accountId });
  }, 120_000);

  it('a file staged by a stager: the import waits while it is queued or staging, then commits', async () => {
    // Past the rows staged first (the mapping's sample), so the file is seen unfinished at least once.
    const rows = Array.from({ length: SAMPLE_ROWS + 40 }, (_, i) => `TMBJJ7NE4F0123456;B999XYZ;18.03.2025;;${45_000 + i};;;OE-3`);
    const program = await prepare(
      language,
      'import',
      undefined,
      slow,
      ['Serie șasiu (VIN);Nr. înmatriculare;Data prestației;Km intrare;Km ieșire;Cod operație;Denumire operație;Cod prestație', ...rows].join('\r\n'),
    );
    const out = await program.run();
    expect(out.status, `${out.stdout}\n${out.stderr}`).toBe(0);
    expect(out.stdout).toMatch(/^status: (queued|staging)$/m);
    expect(out.stdout).toMatch(/^status: staged$/m);
    const batchId = Number(/^batch_id: (\d+)$/m.exec(out.stdout)?.[1]);
    const [batch] = await slow.t.ctx.sql<{ status: string; row_count: number }[]>`SELECT status, row_count FROM import_batches WHERE id = ${batchId}`;
    expect(batch).toEqual({ status: 'committed', row_count: SAMPLE_ROWS + 40 });
  }, 120_000);
});

describe.skipIf(missingPrograms('the CI step example', { curl: 'curl', jq: 'jq' }).length > 0)('the CI step', () => {
  const script = () => {
    const step = blocks.get('ex-ci')!;
    const body = step.split('run: |\n')[1]!;
    return body.replace(/^ {4}/gm, '');
  };

  it('passes for a record the dry run finds queued, and fails the job with a wrong key', async () => {
    const cwd = mkdtempSync(join(dir, 'ci-'));
    const key = await gateway.t.createKey(await gateway.t.createAccount('Service CI'));
    const env = { GATEWAY_URL: gateway.base, GATEWAY_API_KEY: key };
    const ok = await run('bash', ['-eo', 'pipefail', '-c', script()], { cwd, env });
    expect(ok.status, `${ok.stdout}\n${ok.stderr}`).toBe(0);
    expect(ok.stdout).toContain('"status_estimat": "queued"');
    const refused = await run('bash', ['-eo', 'pipefail', '-c', script()], { cwd, env: { ...env, GATEWAY_API_KEY: 'gw_nu_exista' } });
    expect(refused.status).not.toBe(0);
  }, 60_000);

  it('fails the job when the verdict is not queued', async () => {
    const cwd = mkdtempSync(join(dir, 'ci-'));
    const key = await gateway.t.createKey(await gateway.t.createAccount('Service CI 2'));
    const held = script().replace(EXAMPLE_SUBMISSION.vin, EXAMPLE_SUBMISSION.vin.slice(0, 16));
    const out = await run('bash', ['-eo', 'pipefail', '-c', held], { cwd, env: { GATEWAY_URL: gateway.base, GATEWAY_API_KEY: key } });
    expect(out.status).not.toBe(0);
    expect(out.stdout).toContain('"status_estimat": "needs_data"');
  }, 60_000);
});
