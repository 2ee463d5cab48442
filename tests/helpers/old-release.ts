import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A landed release of the product, built from this clone's history: `git archive` of its
// commit into a temporary directory, bundled by its own scripts/build.mjs (under a second).
// Its npm packages are this checkout's (node_modules linked in): the bundles import them at
// run time, as `npm start` of that release did.

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * The release issue 34 starts from: the upgrade test starts it, then this version, on one
 * database. When a later release lands, both move to it together (docs/operations-upgrade.md).
 */
export const RELEASE = '33b3ed6';
/** RELEASE's last migration (db/migrations/meta/_journal.json at that commit): the ones after it must not break it. */
export const RELEASE_LAST_MIGRATION = '0016_account_scope';

/**
 * Whether the clone holds `commit`. A shallow clone (`git clone --depth 1`, CI checkouts that
 * fetch one commit) does not: under CI that fails the run, saying how to fetch the history;
 * elsewhere the tests that need it are skipped with that line.
 */
export function hasRelease(commit: string, what: string): boolean {
  const found = spawnSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT }).status === 0;
  if (found) return true;
  const line = `${what} builds release ${commit} from the git history, which this clone lacks (a shallow clone?): git fetch --unshallow`;
  if (process.env.CI === 'true') throw new Error(`CI: ${line}`);
  process.stderr.write(`skipped: ${line}\n`);
  return false;
}

export interface BuiltRelease {
  commit: string;
  /** The release's checkout: its dist/ (main.js, worker.js, the CLIs) and public/. */
  root: string;
  remove(): void;
}

/** `commit`'s tree, built as `npm start` builds it, in a temporary directory. */
export function buildRelease(commit: string): BuiltRelease {
  const root = mkdtempSync(join(tmpdir(), `gateway-release-${commit}-`));
  const remove = () => rmSync(root, { recursive: true, force: true });
  try {
    const archive = spawnSync('sh', ['-c', 'git archive --format=tar "$0" | tar -x -C "$1"', commit, root], { cwd: ROOT, encoding: 'utf8' });
    if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr}`);
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`build of ${commit} failed: ${built.stderr}`);
  } catch (error) {
    remove();
    throw error;
  }
  return { commit, root, remove };
}

/** One of the release's command-line tools (dist/accounts.js, keys.js, users.js): the last line of its output. */
export async function runReleaseCli(release: BuiltRelease, tool: 'accounts' | 'keys' | 'users', args: string[], env: Record<string, string>, input?: string): Promise<string> {
  const child = spawn(process.execPath, [join('dist', `${tool}.js`), ...args], { cwd: release.root, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(input ?? '');
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`${release.commit} ${tool} ${args.join(' ')} failed (${code}): ${err}`);
  return out.trim().split('\n').pop() ?? '';
}
