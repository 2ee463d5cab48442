import { spawnSync } from 'node:child_process';

// What a test needs beyond Node and npm (a browser, an interpreter, a compiler). On a developer's
// machine that lacks one, the tests that need it are skipped with one line naming the Debian
// package to install; under CI (`CI=true`, as .ci/run runs), which installs them all, a missing
// program fails the run instead, so a broken install cannot pass as skipped tests.

/** Whether `program` is on the PATH (or, given as a path, exists and runs). */
export function hasProgram(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v "$0" >/dev/null`, program]).status === 0;
}

/**
 * The programs missing for a test, each with the packages that bring it. Under CI a missing
 * program throws; elsewhere the skip is announced once on stderr.
 */
export function missingPrograms(what: string, programs: Record<string, string>): string[] {
  const missing = Object.keys(programs).filter((program) => !hasProgram(program));
  if (missing.length === 0) return [];
  const install = [...new Set(missing.map((p) => programs[p]))].join(' ');
  const line = `${what} needs ${missing.join(', ')}: apt-get install ${install}`;
  if (process.env.CI === 'true') throw new Error(`CI: ${line}`);
  process.stderr.write(`skipped: ${line}\n`);
  return missing;
}
