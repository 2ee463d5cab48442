import { asc } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import { nomenclator } from '../../../db/schema';

const TTL_MS = 10_000;

export interface NomenclatorCache {
  /** Registry code → name; reloaded at most every 10 s (the worker refreshes the table). */
  get(exec: Executor): Promise<ReadonlyMap<string, string>>;
  invalidate(): void;
}

export function createNomenclatorCache(clock: () => Date = () => new Date()): NomenclatorCache {
  let cached: { at: number; map: Map<string, string> } | undefined;
  // A load in flight is shared only by callers on the same executor: a transaction that awaited
  // a load queued on the pool would hold its connection while it waits for another.
  let loading: { exec: Executor; map: Promise<Map<string, string>> } | undefined;
  return {
    async get(exec) {
      const now = clock().getTime();
      if (cached && now - cached.at < TTL_MS) return cached.map;
      if (loading?.exec !== exec) {
        const load = {
          exec,
          map: exec
            .select({ cod: nomenclator.cod, denumire: nomenclator.denumire })
            .from(nomenclator)
            .orderBy(asc(nomenclator.cod))
            .then((rows) => new Map(rows.map((r) => [r.cod, r.denumire])))
            .finally(() => {
              if (loading === load) loading = undefined;
            }),
        };
        loading = load;
      }
      const map = await loading.map;
      cached = { at: now, map };
      return map;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
