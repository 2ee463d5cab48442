import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorResponse } from './envelope';
import { createWindowCounter } from './rate-limit';
import type { AppEnv } from './env';

export class BodyTooLargeError extends Error {}

/** Node's request under @hono/node-server; none under a test's app.request. */
export function nodeRequest(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

const CONNECTION_GONE = new Set(['ECONNRESET', 'ERR_STREAM_PREMATURE_CLOSE', 'ABORT_ERR']);

/**
 * Whether `error` is the client going away before its body arrived (a closed tab, a dropped
 * line): Node's request stream fails with "aborted" and the request's signal is aborted. That
 * is the client's doing, not a fault of ours, so it is never journalled as one.
 */
export function isAbortedBody(c: Context, error: unknown): boolean {
  const incoming = nodeRequest(c);
  if (!(incoming?.readableAborted || c.req.raw.signal.aborted)) return false;
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (CONNECTION_GONE.has(String((e as { code?: unknown }).code)) || e.message === 'aborted' || e.name === 'AbortError') return true;
  }
  return false;
}

/** Milliseconds each request's body reading waited (for its client's bytes, or for its turn): see bodyWaitMs. */
const waits = new WeakMap<Request, number>();

/**
 * How long reading the request's body waited so far: for the client's next bytes, or for its
 * turn while other requests ran. None of it is the request's own work: the cost budget does
 * not charge it (cost-budget.ts), so a large body on a slow line costs its account what its
 * bytes cost the server, not the line's seconds.
 */
export function bodyWaitMs(c: Context): number {
  return waits.get(c.req.raw) ?? 0;
}

function waited(c: Context, since: number): void {
  waits.set(c.req.raw, bodyWaitMs(c) + performance.now() - since);
}

/**
 * The chunks of Node's request, at most one per turn of the event loop. Read as fast as they
 * come, twenty bodies arriving at once gave the event loop 10–20 MB per turn (libuv reads a
 * socket until it is empty, backpressure or not), 15–40 ms during which no other account's
 * request moved; one chunk per socket per turn is about 1 MB, and the bodies arrive as fast.
 * The body's last chunk (its declared length reached) is not followed by a wait. The time
 * between the chunks is recorded as waited (bodyWaitMs).
 */
async function* chunksInTurn(c: Context, incoming: IncomingMessage): AsyncGenerator<Buffer> {
  const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
  let size = 0;
  let since = performance.now();
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    waited(c, since);
    yield chunk;
    since = performance.now();
    size += chunk.length;
    if (size !== declared) await new Promise(setImmediate);
  }
  waited(c, since);
}

/**
 * The request body, refused past `maxBytes` (a declared length past it before a byte is read).
 * Under @hono/node-server it is read straight from Node's request (building a web Request
 * with a body stream costs more than the rest of a small request, and reading a 10 MB upload
 * through it took a quarter of a second); elsewhere (tests' app.request) from c.req.
 */
export async function readBody(c: Context, maxBytes: number): Promise<Buffer> {
  const declared = Number(c.req.header('content-length') ?? 0);
  if (declared > maxBytes) throw new BodyTooLargeError();
  const incoming = nodeRequest(c);
  if (!incoming) {
    const bytes = Buffer.from(await c.req.arrayBuffer());
    if (bytes.length > maxBytes) throw new BodyTooLargeError();
    return bytes;
  }
  // A large body of a declared length is copied into its place as it arrives: concatenated at
  // the end, a 14 MB body held the event loop 40–50 ms in one piece (the fresh memory's page
  // faults), spread over its chunks instead. Memory is taken as the bytes arrive (the pages of
  // an unsafe allocation are the system's until written), and a large body is costly work of
  // its account (cost-budget.ts), bounded in number.
  if (declared > PRESIZED_FROM) return readInto(chunksInTurn(c, incoming), Buffer.allocUnsafeSlow(declared));
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunksInTurn(c, incoming)) {
    size += chunk.length;
    if (size > maxBytes) {
      incoming.resume();
      throw new BodyTooLargeError();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** Bodies declared larger than this are read into a buffer of their size. */
const PRESIZED_FROM = 64 * 1024;

/** A body of its declared length, `body`'s (Node's parser delivers no more, and fails a shorter one). */
async function readInto(chunks: AsyncIterable<Buffer>, body: Buffer): Promise<Buffer> {
  let size = 0;
  for await (const chunk of chunks) size += chunk.copy(body, size);
  return body.subarray(0, size);
}

/** Chunks of refused bodies read per turn of the event loop, all of them together. */
const DISCARD_PER_TURN = 4;
const discardQueue: Array<() => void> = [];

/** Resolves when this chunk's turn comes: DISCARD_PER_TURN per turn of the event loop, in arrival order. */
function discardTurn(): Promise<void> {
  return new Promise((resolve) => {
    discardQueue.push(resolve);
    if (discardQueue.length === 1) setImmediate(nextDiscards);
  });
}

function nextDiscards() {
  for (const resolve of discardQueue.splice(0, DISCARD_PER_TURN)) resolve();
  if (discardQueue.length > 0) setImmediate(nextDiscards);
}

/**
 * Reads a body that will not be used and drops it as it arrives (up to `maxBytes`; past it the
 * connection is left to close): a client that sent a large upload before reading the answer
 * gets the answer, instead of a broken pipe, and nothing is kept in memory meanwhile. Every
 * body being dropped shares one lane of DISCARD_PER_TURN chunks per turn: a storm of refused
 * uploads is read only as fast as that lane, so the bytes nobody wants never take the event
 * loop's turns from the requests of other accounts. Past DROPS_PER_MINUTE large bodies of an
 * account, the body is not read: the answer goes at once and the connection is closed.
 */
export async function discardBody(c: Context, maxBytes: number): Promise<void> {
  const incoming = nodeRequest(c);
  if (!incoming) {
    if (!c.req.raw.bodyUsed && !c.req.raw.body?.locked) await c.req.raw.body?.cancel();
    return;
  }
  // Asked of Node's request, not of the web Request: building that, and the stream of its body,
  // cost more than the rest of a refusal, and the stream began reading the body nobody wanted
  // (bench:abuse, attack 5a). A form the CSRF check already read (a dashboard post refused by
  // the cost budget) has nothing left to drop.
  if (!hasBody(incoming) || incoming.readableDidRead) return;
  const accountId = (c.get('actor') as { accountId?: number } | undefined)?.accountId;
  // Past its allowance, an account's refused bodies are not read at all (closeUnreadBodies).
  if (accountId !== undefined && isLarge(incoming) && drops.hit(String(accountId)).count > DROPS_PER_MINUTE) return;
  dropping.add(incoming);
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return;
    await discardTurn();
  }
}

/** Bodies being dropped on purpose (discardBody), whose connections stay open for the answer. */
const dropping = new WeakSet<IncomingMessage>();

/**
 * Large refused bodies this server drops for one account in a minute. A client that honours Retry-After
 * meets a few (a workshop sending five files at once: three); one that sends them back to back
 * made this server read and drop 15 MB files at hundreds of MB a second (bench:abuse, attack 1).
 */
const DROPS_PER_MINUTE = 10;
const drops = createWindowCounter({ windowMs: 60_000, maxKeys: 10_000 });

/** A body at least this large that nobody read is not read after a refusal. */
const UNREAD_CLOSES_FROM = 64 * 1024;

/** Whether the request says it has a body: a declared length over 0, or chunks. */
function hasBody(incoming: IncomingMessage): boolean {
  return Number(incoming.headers['content-length'] ?? 0) > 0 || incoming.headers['transfer-encoding'] !== undefined;
}

/** A body declared UNREAD_CLOSES_FROM or longer, or sent in chunks of no declared length (as long as its client likes). */
function isLarge(incoming: IncomingMessage): boolean {
  const declared = Number(incoming.headers['content-length'] ?? Number.NaN);
  return declared >= UNREAD_CLOSES_FROM || (Number.isNaN(declared) && incoming.headers['transfer-encoding'] !== undefined);
}

/**
 * A refusal (4xx, 5xx) of a request whose large body nobody read closes its connection
 * (`Connection: close`) instead of keeping it alive: to keep it, Node reads the rest of the
 * body and drops it, on the event loop at full speed, so a client sending token-less 15 MiB
 * uploads (or any large body with a wrong key) back to back made the server read hundreds of
 * MB a second (bench:abuse, attack 4). Node closes once the answer is written; a client that
 * reads its answer while it sends has it. Bodies dropped on purpose (discardBody: a refused
 * upload's, so that its client reads the answer rather than a reset) are left to the discard
 * lane.
 */
export const closeUnreadBodies: MiddlewareHandler = async (c, next) => {
  await next();
  const incoming = nodeRequest(c);
  // Only Node's own request has a body to leave unread (a test may hand the app a bare socket address).
  if (!incoming?.headers || c.res.status < 400 || incoming.complete || incoming.readableDidRead || dropping.has(incoming)) return;
  if (isLarge(incoming)) c.header('Connection', 'close');
};

const WITHOUT_BODY = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface BodyLimits {
  /** A JSON body: sized for the largest photo a submission may carry. */
  json: number;
  /** A multipart upload (a spreadsheet), and anything else. */
  upload: number;
}

/**
 * Bodies within their limit or a 413: a JSON body (jsonBody parses it) or a multipart upload
 * (the import route reads it) is read here once, into `rawBody`, which is then the only copy
 * of the body (the request's stream is spent); any other is left to Hono's bodyLimit. JSON has
 * a limit of its own: parsing costs far more per byte than storing an uploaded file.
 *
 * Multipart is read only for an upload its admission let in (`upload`): sent anywhere else it
 * is a 415 before a byte of it is kept, or it would be a way round the admission (each one
 * read whole, then refused by the route's schema). The upload route's body of another type is
 * left unread: the route refuses it by its type.
 */
export function limitBody(limits: BodyLimits, tooLarge: (c: Context, maxBytes: number) => Response): MiddlewareHandler<AppEnv> {
  const others = bodyLimit({ maxSize: limits.upload, onError: (c) => tooLarge(c, limits.upload) });
  return async (c, next) => {
    if (WITHOUT_BODY.has(c.req.method)) return next();
    const type = (c.req.header('content-type') ?? '').toLowerCase();
    const multipart = type.startsWith('multipart/form-data');
    const upload = c.get('upload') !== undefined;
    if (multipart && !upload) {
      dropInBackground(c, limits.upload);
      return errorResponse(c, 'TIP_CORP_NESUPORTAT', 'Corpul multipart/form-data este primit doar de POST /v1/import; această cale primește JSON.');
    }
    if (upload && !multipart) return next();
    if (!type.startsWith('application/json') && !multipart) return others(c, next);
    const maxBytes = multipart ? limits.upload : limits.json;
    try {
      c.set('rawBody', await readBody(c, maxBytes));
    } catch (error) {
      if (error instanceof BodyTooLargeError) return tooLarge(c, maxBytes);
      throw error;
    }
    return next();
  };
}

/**
 * The answer goes out at once, before the body has arrived; the body is dropped as it comes
 * (the discard lane, nothing kept) so that the client, still sending, reads the answer rather
 * than a reset. Its connection failing meanwhile is the client's business.
 */
function dropInBackground(c: Context, maxBytes: number): void {
  discardBody(c, maxBytes).catch(() => undefined);
}
