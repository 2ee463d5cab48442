import type postgres from 'postgres';

/** Polls `probe` every `everyMs` until it answers true; past `timeoutMs`, fails naming `what`. A probe that rejects fails the wait. */
export async function waitUntil(probe: () => Promise<boolean>, timeoutMs: number, what: string, everyMs = 25) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** No submission left to send: none queued, none being sent. */
export async function queueDrained(sql: postgres.Sql): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM submissions WHERE status IN ('queued', 'sending')`;
  return row!.n === 0;
}
