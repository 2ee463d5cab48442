/**
 * Runs `items` through `run`; when the shared statement fails, the batch is split in halves
 * and each is run again, down to single items, so one caller's bad item fails that caller
 * alone (a batch with one bad row among n costs about 2·log2(n) more statements).
 */
async function runIsolated<I, O>(run: (items: I[]) => Promise<O[]>, items: I[]): Promise<Array<{ ok: true; value: O } | { ok: false; error: unknown }>> {
  try {
    return (await run(items)).map((value) => ({ ok: true as const, value }));
  } catch (error) {
    if (items.length === 1) return [{ ok: false, error }];
    const half = Math.ceil(items.length / 2);
    return [...(await runIsolated(run, items.slice(0, half))), ...(await runIsolated(run, items.slice(half)))];
  }
}

/**
 * Shares one database round trip among concurrent callers: items queued while earlier
 * batches are in flight go together in the next one. A lone caller goes at once, so there
 * is no added latency at low load; under load, statements (and commits) are shared.
 * `run` answers one result per item, in order; a failure is the failing item's caller's only.
 */
export function createBatcher<I, O>(run: (items: I[]) => Promise<O[]>, options: { maxBatch?: number; maxInFlight?: number } = {}) {
  const maxBatch = options.maxBatch ?? 200;
  const maxInFlight = options.maxInFlight ?? 2;
  let queue: Array<{ item: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  let inFlight = 0;

  function pump() {
    while (inFlight < maxInFlight && queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(maxBatch);
      inFlight += 1;
      runIsolated(
        run,
        batch.map((b) => b.item),
      )
        .then(
          (results) =>
            batch.forEach((b, i) => {
              const result = results[i]!;
              if (result.ok) b.resolve(result.value);
              else b.reject(result.error);
            }),
          (error: unknown) => {
            for (const b of batch) b.reject(error);
          },
        )
        .finally(() => {
          inFlight -= 1;
          pump();
        });
    }
  }

  return (item: I): Promise<O> =>
    new Promise((resolve, reject) => {
      queue.push({ item, resolve, reject });
      pump();
    });
}
