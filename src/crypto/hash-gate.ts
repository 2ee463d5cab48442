/**
 * Who may run a password hash now, who waits, and who is refused at once. A hash holds a
 * libuv thread and 128 MiB for about a second, so only `running` run at a time; the rest wait
 * in two short queues. A sign-in from a browser that signed in before (`trusted`) is served
 * before any stranger's, so a flood of guesses delays the owner by a hash or two, not by the
 * flood. Past a queue's bound the caller gets HashQueueFull at once: a stranger who sends
 * more than the server can hash is told to come back, never queued for minutes.
 */
export type HashLane = 'trusted' | 'untrusted';

export class HashQueueFull extends Error {
  constructor(readonly retryAfterS: number) {
    super('password hash queue full');
  }
}

export interface HashGateOptions {
  running: number;
  /** Waiting places of each lane. */
  waiting: Record<HashLane, number>;
  now?: () => number;
}

/** A first guess at a hash's time (OWASP's N on two cores), replaced by what is measured. */
const FIRST_ESTIMATE_MS = 1000;

export function createHashGate(options: HashGateOptions) {
  const now = options.now ?? performance.now.bind(performance);
  const queues: Record<HashLane, Array<() => void>> = { trusted: [], untrusted: [] };
  let running = 0;
  let averageMs = FIRST_ESTIMATE_MS;

  function waiting(): number {
    return queues.trusted.length + queues.untrusted.length;
  }

  /** Seconds until everything now running or waiting is done, at the measured pace. */
  function retryAfterS(): number {
    return Math.max(1, Math.ceil((averageMs * (running + waiting())) / options.running / 1000));
  }

  /** A finished hash hands its place straight to the next waiter, so no newcomer slips in between. */
  function release() {
    const next = queues.trusted.shift() ?? queues.untrusted.shift();
    if (next) next();
    else running -= 1;
  }

  return {
    /**
     * Runs `hash` when a place is free. `bounded: false` waits whatever the queue holds: for
     * a password an administrator sets, never for anything a stranger can send.
     */
    async run<T>(lane: HashLane, hash: () => Promise<T>, { bounded = true } = {}): Promise<T> {
      if (running >= options.running) {
        if (bounded && queues[lane].length >= options.waiting[lane]) throw new HashQueueFull(retryAfterS());
        await new Promise<void>((resolve) => queues[lane].push(resolve));
      } else {
        running += 1;
      }
      const started = now();
      try {
        return await hash();
      } finally {
        averageMs = 0.8 * averageMs + 0.2 * (now() - started);
        release();
      }
    },
    /** Hashes running and waiting, for tests and metrics. */
    load: () => ({ running, waiting: waiting() }),
  };
}
export type HashGate = ReturnType<typeof createHashGate>;
