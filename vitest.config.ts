import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

// The browser tests drive Debian's chromium: on a machine without it they are left out, said in
// one line; under CI (CI=true, .ci/run installs it) its absence fails the run instead.
const CHROMIUM = '/usr/bin/chromium';
const withoutBrowser = !existsSync(CHROMIUM);
if (withoutBrowser) {
  const line = `tests/e2e need ${CHROMIUM}: apt-get install chromium`;
  if (process.env.CI === 'true') throw new Error(`CI: ${line}`);
  process.stderr.write(`skipped: ${line}\n`);
}

export default defineConfig({
  test: {
    globalSetup: ['./tests/global-setup.ts'],
    include: ['tests/**/*.test.ts'],
    exclude: withoutBrowser ? ['tests/e2e/**', '**/node_modules/**'] : ['**/node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
