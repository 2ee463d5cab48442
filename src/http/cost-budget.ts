import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config';
import type { AppContext } from '../context';
import type { RequestErrorCode } from '../errors';
import { bodyWaitMs, discardBody } from './body';
import { errorResponse } from './envelope';
import type { AppEnv } from './env';

// The cost budget of each account: work that costs a server far more than a simple read (a
// large body, a large page, an export, a pattern search, a save that re-classifies held rows)
// is let in only within the account's budget, so that one account's burst leaves the other
// accounts' requests moving. Simple reads and writes never count here (the per-key window of
// http/auth.ts bounds them).
//
// The budget is this server's, not the deployment's (unlike the windows of rate-limit.ts):
// what a costly request takes from the others is this process's event loop and cores, and an
// account's work on another server does not slow this one's requests. Two rules:
//  - at most GATEWAY_COSTLY_PER_ACCOUNT costly requests of an account in flight at once, and
//    GATEWAY_COSTLY_MAX of all accounts together;
//  - over time, an account's costly requests take at most GATEWAY_COSTLY_SHARE_PCT of the
//    server's time, measured (each request is charged the milliseconds it took, admission to
//    its response's last byte), with GATEWAY_COSTLY_BURST_MS to spend at once. A bucket that
//    drains steadily, not a window: a window's budget, spent in a burst when it opens, gave
//    the other accounts a slow second in every window.
// Past either, an immediate answer with Retry-After (429 for the account, 503 for the server)
// before the body is read; a refused body is dropped as it arrives (discardBody).

/** The answer when every place of the server is taken: the costly work in flight ends within about this. */
const BUSY_RETRY_AFTER_S = 1;
const MAX_ACCOUNTS = 50_000;

export type CostRefusal = { cod: Extract<RequestErrorCode, 'CONT_PREA_MULTE_OPERATII' | 'SERVER_OCUPAT_OPERATII'>; cauza: string; retryAfterS: number };

export interface CostAdmission {
  /** Charges the work done since the last charge (or the admission), as of now. */
  charge(): void;
  /** Charges `ms` of work that did not happen (a wait) as none: what release() charges ends before it. */
  skip(ms: number): void;
  /** How long the account's debt takes to drain back to the burst: a streamed answer waits this long before its next chunk. */
  waitMs(): number;
  /** Ends the request's costly work: frees its place and charges the rest of the time it took. Idempotent. */
  release(): void;
}

interface Bucket {
  /** Milliseconds of costly work not yet drained, as of `at`. */
  debt: number;
  at: number;
  inFlight: number;
}

export type CostSettings = Pick<Config, 'GATEWAY_COSTLY_PER_ACCOUNT' | 'GATEWAY_COSTLY_MAX' | 'GATEWAY_COSTLY_SHARE_PCT' | 'GATEWAY_COSTLY_BURST_MS'>;

/** The rule itself, apart from HTTP: admit or refuse an account's costly request, then charge it. */
export function createCostBudget(settings: CostSettings, now: () => number = performance.now.bind(performance)) {
  const perAccount = settings.GATEWAY_COSTLY_PER_ACCOUNT;
  const max = settings.GATEWAY_COSTLY_MAX;
  /** Milliseconds of work drained per millisecond. */
  const rate = settings.GATEWAY_COSTLY_SHARE_PCT / 100;
  const burst = settings.GATEWAY_COSTLY_BURST_MS;
  const buckets = new Map<number, Bucket>();
  let inFlight = 0;

  function drained(b: Bucket, at: number) {
    b.debt = Math.max(0, b.debt - (at - b.at) * rate);
    b.at = at;
  }

  /** Buckets drained to nothing with nothing in flight go first; then, if still full, the oldest idle ones. */
  function evict(at: number) {
    for (const [id, b] of buckets) {
      drained(b, at);
      if (b.debt === 0 && b.inFlight === 0) buckets.delete(id);
    }
    for (const [id, b] of buckets) {
      if (buckets.size < MAX_ACCOUNTS) break;
      if (b.inFlight === 0) buckets.delete(id);
    }
  }

  function bucketOf(accountId: number, at: number): Bucket {
    let b = buckets.get(accountId);
    if (!b) {
      if (buckets.size >= MAX_ACCOUNTS) evict(at);
      b = { debt: 0, at, inFlight: 0 };
      buckets.set(accountId, b);
    }
    drained(b, at);
    return b;
  }

  return {
    /** `placed: false`: work that holds a place of its own elsewhere (an upload's, upload-admission.ts) is held only to the share. */
    admit(accountId: number, placed = true): CostAdmission | CostRefusal {
      const at = now();
      const b = bucketOf(accountId, at);
      if (placed && b.inFlight >= perAccount) {
        return { cod: 'CONT_PREA_MULTE_OPERATII', cauza: `Contul are deja ${perAccount} operații costisitoare în curs pe acest server.`, retryAfterS: BUSY_RETRY_AFTER_S };
      }
      // Past the burst (with none, as soon as anything is owed) the account waits for its debt to drain.
      if (b.debt > burst) {
        const retryAfterS = Math.max(1, Math.ceil((b.debt - burst) / rate / 1000));
        return {
          cod: 'CONT_PREA_MULTE_OPERATII',
          cauza: `Operațiile costisitoare ale contului au folosit partea lor din timpul serverului (${settings.GATEWAY_COSTLY_SHARE_PCT}%, GATEWAY_COSTLY_SHARE_PCT).`,
          retryAfterS,
        };
      }
      if (placed && inFlight >= max) return { cod: 'SERVER_OCUPAT_OPERATII', cauza: `Serverul execută deja ${max} operații costisitoare.`, retryAfterS: BUSY_RETRY_AFTER_S };
      const places = placed ? 1 : 0;
      b.inFlight += places;
      inFlight += places;
      let open = true;
      let charged = at;
      const charge = () => {
        const end = now();
        drained(b, end);
        b.debt += Math.max(0, end - charged);
        charged = end;
        // A bucket evicted meanwhile still counts: it is put back.
        if (!buckets.has(accountId)) buckets.set(accountId, b);
      };
      return {
        charge() {
          if (open) charge();
        },
        skip(ms) {
          charged += ms;
        },
        waitMs() {
          drained(b, now());
          return b.debt > burst ? (b.debt - burst) / rate : 0;
        },
        release() {
          if (!open) return;
          open = false;
          charge();
          b.inFlight -= places;
          inFlight -= places;
        },
      };
    },
    /** For tests and metrics: costly requests in flight on this server. */
    inFlight: () => inFlight,
  };
}

export type CostBudget = ReturnType<typeof createCostBudget>;

// One budget per app context: every route of a server draws on the same one.
const budgets = new WeakMap<AppContext, CostBudget>();

export function costBudgetOf(ctx: AppContext): CostBudget {
  let budget = budgets.get(ctx);
  if (!budget) {
    budget = createCostBudget(ctx.config);
    budgets.set(ctx, budget);
  }
  return budget;
}

/** A streamed answer's pause between two chunks, at most: a client waiting longer may give up. */
const MAX_PAUSE_MS = 2_000;

/**
 * The response with its body watched: the admission is released once its last byte was read,
 * or when the client went away (a streamed export is in flight until then, not when its headers
 * leave). Its work is charged chunk by chunk, and past the account's burst each next chunk
 * waits for the debt to drain: a long export goes on at the account's share of the server's
 * time instead of taking a core for as long as it runs.
 */
function watchEnd(res: Response, admission: CostAdmission): Response {
  if (!res.body) {
    admission.release();
    return res;
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const wait = Math.min(MAX_PAUSE_MS, admission.waitMs());
        if (wait > 0) {
          admission.charge();
          await new Promise((resolve) => setTimeout(resolve, wait));
          admission.skip(wait);
        }
        const { value, done: end } = await reader.read();
        if (end) {
          controller.close();
          admission.release();
        } else {
          controller.enqueue(value);
          admission.charge();
        }
      } catch (error) {
        admission.release();
        controller.error(error);
      }
    },
    cancel(reason) {
      admission.release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

export type Refuse = (c: Context, cod: CostRefusal['cod'], cauza: string) => Response | Promise<Response>;

/** The API's refusal: the JSON envelope. */
export const refuseJson: Refuse = (c, cod, cauza) => errorResponse(c, cod, cauza);

/**
 * Runs the rest of the request as costly work of its account when `isCostly(c)` says so (always,
 * without it): admitted within the budget, or refused at once with Retry-After by `refuse`
 * (the API's envelope by default; the dashboard passes its notice). A refused request's body,
 * if it has one, is dropped unread. `streamed`: the answer is a stream (an export), in flight
 * until its last byte is read and paced to the account's share (watchEnd).
 */
export function costly<E extends AppEnv>(
  ctx: AppContext,
  options: { isCostly?: (c: Context<E>) => boolean | Promise<boolean>; refuse?: Refuse; streamed?: boolean; placed?: boolean } = {},
): MiddlewareHandler<E> {
  const budget = costBudgetOf(ctx);
  const refuse = options.refuse ?? refuseJson;
  return async (c, next) => {
    // A large body to a costly route is one costly request, admitted once.
    if (admitted.has(c.req.raw) || (options.isCostly && !(await options.isCostly(c)))) return next();
    const admission = budget.admit(c.get('actor').accountId, options.placed);
    if ('cod' in admission) {
      if (!c.get('rawBody')) await discardBody(c, ctx.config.GATEWAY_MAX_BODY_BYTES);
      c.header('Retry-After', String(admission.retryAfterS));
      return refuse(c, admission.cod, admission.cauza);
    }
    admitted.add(c.req.raw);
    // What the body's reading waits for from now on (its client, its turns) is not the request's work.
    const waitedBefore = bodyWaitMs(c);
    const skipWaits = () => admission.skip(bodyWaitMs(c) - waitedBefore);
    try {
      await next();
    } catch (error) {
      skipWaits();
      admission.release();
      throw error;
    }
    skipWaits();
    // An answer made whole before it is sent is done; a streamed one (an export) when its last byte is read.
    if (options.streamed) c.res = watchEnd(c.res, admission);
    else admission.release();
  };
}

/** The requests already let in as costly work. */
const admitted = new WeakSet<Request>();

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Whether a request's body makes it costly: declared larger than GATEWAY_COSTLY_BODY_KB, or of
 * a length not declared (a chunked body may be as large as the limit). An upload (multipart)
 * is costly by its own route (uploadCost).
 */
export function hasLargeBody(config: Pick<Config, 'GATEWAY_COSTLY_BODY_KB'>) {
  const bytes = config.GATEWAY_COSTLY_BODY_KB * 1024;
  return (c: Context): boolean => {
    if (!WITH_BODY.has(c.req.method)) return false;
    if ((c.req.header('content-type') ?? '').toLowerCase().startsWith('multipart/form-data')) return false;
    const declared = c.req.header('content-length');
    if (declared === undefined) return c.req.header('transfer-encoding') !== undefined;
    return Number(declared) > bytes;
  };
}

/**
 * An upload is costly work of its account, held to its share of the server's time: its
 * admission (upload-admission.ts) bounds the files an account has in the queue at once, not how
 * often it sends them (bench:abuse, attack 1: files a stager refused at once, 43 × 15 MB in
 * 16 s). Its place is the upload admission's, so it takes none of the cost budget's.
 */
export function uploadCost<E extends AppEnv>(ctx: AppContext, refuse?: Refuse): MiddlewareHandler<E> {
  return costly<E>(ctx, { refuse, placed: false });
}
