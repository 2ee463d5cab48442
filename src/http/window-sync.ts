import type { Sql } from '../../db/client';
import { sha256Hex } from '../crypto/hash';

/** How often this process writes its hits and reads the deployment's counts back. */
const FLUSH_MS = 100;
const MAX_KEYS = 50_000;
/** A key hit this recently is read back at each flush even with nothing to write, to learn the other servers' hits. */
const FRESH_MS = 1_000;
/** Windows ended this long ago leave the table (the longest window is 15 minutes). */
const PURGE_AFTER_MS = 60 * 60_000;
const PURGE_EVERY_MS = 5 * 60_000;

interface Entry {
  scope: string;
  digest: string;
  windowMs: number;
  /** The window as this process knows it: its own, or the deployment's once a flush returned it. */
  start: number;
  /** The deployment's count as the last flush returned it. */
  known: number;
  /** Hits written by the flush under way. */
  inFlight: number;
  /** Hits not written yet (a taken-back attempt is -1). */
  pending: number;
  lastHit: number;
}

export interface WindowCount {
  /** The deployment's hits in the window as this process knows them, this one included. */
  count: number;
  start: number;
  /** The count of the window before, when this hit opened a new one here (else 0). */
  previous: number;
}

export interface WindowSync {
  add(scope: string, key: string, windowMs: number, delta: number): WindowCount;
  /** Writes what is pending now (the timer does it every 100 ms). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Rate-limit windows shared by every server of the deployment through `rate_windows`. A hit
 * is counted here at once (the request never waits for the database) and written with the
 * next flush, one statement for every key with hits or hit in the last second, which returns
 * each key's deployment-wide count: so a limit holds for all servers together, give or take
 * the hits the other servers made in the last 100 ms. If the database cannot be reached, hits wait for the next flush and
 * each server counts its own meanwhile.
 */
export function createWindowSync(sql: Sql, now: () => number = Date.now): WindowSync {
  const entries = new Map<string, Entry>();
  let flushing: Promise<void> | undefined;
  let purgedAt = now();

  function entryOf(scope: string, key: string, windowMs: number): Entry {
    const id = `${scope}\u0000${key}`;
    let entry = entries.get(id);
    if (!entry) {
      if (entries.size >= MAX_KEYS) evict();
      entry = { scope, digest: sha256Hex(`${scope}:${key}`), windowMs, start: 0, known: 0, inFlight: 0, pending: 0, lastHit: 0 };
      entries.set(id, entry);
    }
    return entry;
  }

  /** Ended windows with nothing to write go; then, if still full, the oldest. */
  function evict() {
    const at = now();
    for (const [id, e] of entries) if (at - e.start >= e.windowMs && e.pending === 0 && e.inFlight === 0) entries.delete(id);
    for (const id of entries.keys()) {
      if (entries.size < MAX_KEYS) break;
      entries.delete(id);
    }
  }

  async function write(batch: Entry[]) {
    // One order for every server's statement: two upserts of the same keys never deadlock.
    batch.sort((a, b) => (a.scope + a.digest < b.scope + b.digest ? -1 : 1));
    const deltas = batch.map((e) => e.pending);
    const starts = batch.map((e) => e.start);
    for (const e of batch) {
      e.inFlight = e.pending;
      e.pending = 0;
    }
    try {
      const rows = await sql<{ scope: string; key: string; window_start: string | number; count: number }[]>`
        INSERT INTO rate_windows AS w (scope, key, window_start, window_ms, count)
        SELECT * FROM unnest(${batch.map((e) => e.scope)}::text[], ${batch.map((e) => e.digest)}::text[], ${starts}::bigint[],
                             ${batch.map((e) => e.windowMs)}::int[], ${deltas}::int[])
        ON CONFLICT (scope, key) DO UPDATE SET
          window_start = CASE WHEN w.window_start + w.window_ms <= EXCLUDED.window_start THEN EXCLUDED.window_start ELSE w.window_start END,
          window_ms = EXCLUDED.window_ms,
          count = greatest(0, CASE WHEN w.window_start + w.window_ms <= EXCLUDED.window_start THEN EXCLUDED.count ELSE w.count + EXCLUDED.count END)
        RETURNING scope, key, window_start, count`;
      const sent = new Map(batch.map((e, i) => [`${e.scope}\u0000${e.digest}`, { e, start: starts[i]! }]));
      for (const r of rows) {
        const hit = sent.get(`${r.scope}\u0000${r.key}`);
        if (!hit) continue;
        hit.e.inFlight = 0;
        // A window this server opened while the statement ran is not the one the row speaks of.
        if (hit.e.start !== hit.start) continue;
        // The deployment's window may have begun a little before this server's.
        hit.e.start = Number(r.window_start);
        hit.e.known = r.count;
      }
    } catch {
      for (const e of batch) {
        e.pending += e.inFlight;
        e.inFlight = 0;
      }
    }
  }

  async function purge() {
    purgedAt = now();
    await sql`DELETE FROM rate_windows WHERE window_start + window_ms < ${now() - PURGE_AFTER_MS}::bigint`.catch(() => {});
  }

  async function flushOnce() {
    const at = now();
    const batch = [...entries.values()].filter((e) => e.pending !== 0 || (at - e.lastHit < FRESH_MS && at - e.start < e.windowMs));
    if (batch.length > 0) await write(batch);
    if (now() - purgedAt >= PURGE_EVERY_MS) await purge();
  }

  /** One flush at a time; a call during one waits for it, then writes what came meanwhile. */
  async function flush(): Promise<void> {
    while (flushing) await flushing;
    flushing = flushOnce();
    try {
      await flushing;
    } finally {
      flushing = undefined;
    }
  }

  const timer = setInterval(() => void flush(), FLUSH_MS);
  timer.unref();

  return {
    add(scope, key, windowMs, delta) {
      const at = now();
      const e = entryOf(scope, key, windowMs);
      let previous = 0;
      if (at - e.start >= e.windowMs) {
        // A new window, here: the flush tells whether another server began it already.
        previous = e.known + e.inFlight + e.pending;
        e.start = at;
        e.known = 0;
        e.pending = 0;
        e.windowMs = windowMs;
      }
      e.pending += delta;
      e.lastHit = at;
      return { count: e.known + e.inFlight + e.pending, start: e.start, previous };
    },
    flush,
    async stop() {
      clearInterval(timer);
      await flush();
    },
  };
}
