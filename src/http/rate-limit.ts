import type { WindowSync } from './window-sync';

// Counters of fixed windows per key (a client address, an API key): one process's, held in
// memory and bounded (past `maxKeys` the expired entries go, then the oldest), or the whole
// deployment's (createSharedWindowCounter). `windowCounter` picks: shared when a sync is given.

export interface WindowHit {
  /** Hits in the current window, this one included. */
  count: number;
  /** Hits of the window before, when this hit opened a new one (else 0). */
  previous: number;
  /** Seconds until the window ends. */
  retryAfterS: number;
}

export function createWindowCounter(options: { windowMs: number; maxKeys?: number; now?: () => number }) {
  const maxKeys = options.maxKeys ?? 50_000;
  const now = options.now ?? Date.now;
  const windows = new Map<string, { start: number; count: number }>();

  function evict(at: number) {
    for (const [key, w] of windows) if (at - w.start >= options.windowMs) windows.delete(key);
    for (const key of windows.keys()) {
      if (windows.size < maxKeys) break;
      windows.delete(key);
    }
  }

  function current(key: string, at: number) {
    const w = windows.get(key);
    return w && at - w.start < options.windowMs ? w : undefined;
  }

  return {
    hit(key: string): WindowHit {
      const at = now();
      let w = current(key, at);
      let previous = 0;
      if (!w) {
        previous = windows.get(key)?.count ?? 0;
        windows.delete(key);
        if (windows.size >= maxKeys) evict(at);
        w = { start: at, count: 0 };
        windows.set(key, w);
      }
      w.count += 1;
      return { count: w.count, previous, retryAfterS: Math.max(1, Math.ceil((w.start + options.windowMs - at) / 1000)) };
    },
    /** Takes back this window's last hit (an attempt counted before it turned out to succeed). */
    release(key: string): void {
      const w = current(key, now());
      if (w && w.count > 0) w.count -= 1;
    },
  };
}

/**
 * The same counter for the whole deployment (http/window-sync.ts): every server's hits of a
 * key count together. `scope` names the limit, so two limits never share a key's window.
 */
export function createSharedWindowCounter(options: { windowMs: number; scope: string; sync: WindowSync; now?: () => number }) {
  const now = options.now ?? Date.now;
  return {
    hit(key: string): WindowHit {
      const { count, start, previous } = options.sync.add(options.scope, key, options.windowMs, 1);
      return { count, previous, retryAfterS: Math.max(1, Math.ceil((start + options.windowMs - now()) / 1000)) };
    },
    release(key: string): void {
      options.sync.add(options.scope, key, options.windowMs, -1);
    },
  };
}

/** The deployment's counter when `sync` is given (every server has one), else this process's (a unit test). */
export function windowCounter(options: { windowMs: number; scope: string; sync?: WindowSync }) {
  return options.sync ? createSharedWindowCounter({ ...options, sync: options.sync }) : createWindowCounter(options);
}
