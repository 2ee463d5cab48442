import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('npm test exit code', () => {
  it('is non-zero when a test fails, even with embedded PostgreSQL loaded', () => {
    const env = { ...process.env };
    delete env.TEST_DATABASE_URL;
    delete env.VITEST;
    delete env.VITEST_WORKER_ID;
    delete env.VITEST_POOL_ID;
    const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'tests/exit-code/vitest.config.ts'], {
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stdout + run.stderr).toMatch(/1 failed/);
    expect(run.status).not.toBe(0);
    expect(run.status).not.toBeNull();
  }, 130_000);
});
