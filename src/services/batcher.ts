/**
 * Shares one database round trip among concurrent callers: items queued while earlier
 * batches are in flight go together in the next one. A lone caller goes at once, so there
 * is no added latency at low load; under load, statements (and commits) are shared.
 * `run` answers one result per item, in order.
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
      run(batch.map((b) => b.item))
        .then(
          (results) => batch.forEach((b, i) => b.resolve(results[i] as O)),
          (error: unknown) => batch.forEach((b) => b.reject(error)),
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
