import { defineConfig } from 'vitest/config';

// Runs one deliberately failing test with the real global setup (embedded PostgreSQL), to
// prove that a failure makes the run exit non-zero (tests/integration/exit-code.test.ts).
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    globalSetup: ['./tests/global-setup.ts'],
    include: ['tests/exit-code/*.fail.ts'],
  },
});
