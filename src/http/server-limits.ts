import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config';
import type { RequestErrorCode } from '../errors';
import { clientAddressOfRequest, isTrustedProxy } from './client-address';
import { errorBody } from './envelope';
import { statusOf } from './status';

type Limits = Pick<
  Config,
  | 'GATEWAY_REQUEST_TIMEOUT_S'
  | 'GATEWAY_HEADERS_TIMEOUT_S'
  | 'GATEWAY_KEEPALIVE_TIMEOUT_S'
  | 'GATEWAY_MAX_CONNECTIONS'
  | 'GATEWAY_MAX_CONNECTIONS_PER_ADDRESS'
  | 'GATEWAY_BODY_TIMEOUT_S'
  | 'GATEWAY_TRUSTED_PROXIES'
>;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * How long a client told to wait is not read. A connection answered 429 and kept alive is not
 * read for this long: a client that ignores its Retry-After and sends the next request on it
 * straight away waits for it there, instead of being refused thousands of times a second
 * (bench:abuse: five such clients of one account kept the server's event loop busy the whole
 * time, and another account's p95 went to 2–4 × its quiet value). A refusal of a request that
 * closes its connection (a large body left unread) cannot pause that connection, and such a
 * client reconnects at once: for this long its address's new connections wait unread instead
 * (bench:abuse, attacks 1, 4 and 5a: 4,000–15,000 refusals in 16 s, each about a millisecond of
 * the server). A client that honours Retry-After (a second at least) never notices; another
 * client behind the same address (a NAT) waits a second for a new connection, not for one it
 * holds. A refused connection (the address past its cap) starts no wait: waiting ones would
 * only add to what the address holds (bench:abuse, attack 3); it is held itself (refuse).
 */
const REFUSED_PAUSE_MS = 1_000;

/** Addresses whose new connections wait, remembered at most: past it, those whose pause is over go first, then the oldest. */
const MAX_PAUSED_ADDRESSES = 10_000;

/** What a body earns per byte received: a second of waiting per kilobyte, on top of GATEWAY_BODY_TIMEOUT_S. */
const BODY_BYTES_PER_S = 1024;

/**
 * Options for Node's HTTP server, given when it is created: Node checks its request and
 * header timeouts on an interval (30 s by default), which must be shorter than they are.
 */
export function serverOptions(config: Pick<Limits, 'GATEWAY_REQUEST_TIMEOUT_S' | 'GATEWAY_HEADERS_TIMEOUT_S' | 'GATEWAY_KEEPALIVE_TIMEOUT_S'>) {
  return {
    requestTimeout: config.GATEWAY_REQUEST_TIMEOUT_S * 1000,
    headersTimeout: config.GATEWAY_HEADERS_TIMEOUT_S * 1000,
    keepAliveTimeout: config.GATEWAY_KEEPALIVE_TIMEOUT_S * 1000,
    connectionsCheckingInterval: Math.min(1000, config.GATEWAY_HEADERS_TIMEOUT_S * 500),
  };
}

/**
 * What a slow or greedy client may hold: a request whose headers arrive too slowly is answered
 * 408 and closed, so is one whose body keeps the server waiting (watchBodies), an idle
 * kept-alive socket is closed, connections past the cap are closed at once, and those of one
 * client address past its own cap are refused 429 and held unread (refuse). A connection from
 * a trusted proxy (GATEWAY_TRUSTED_PROXIES) carries many clients: its requests count, each
 * under its forwarded address, while in progress, and the proxy answers for the connections
 * themselves (docs/operations-proxy.md).
 *
 * Called once the server has its request listener: the listener is put behind these checks.
 */
export function limitServer(server: Server, config: Limits): void {
  const options = serverOptions(config);
  server.requestTimeout = options.requestTimeout;
  server.headersTimeout = options.headersTimeout;
  server.keepAliveTimeout = options.keepAliveTimeout;
  const cap = config.GATEWAY_MAX_CONNECTIONS;
  // Node closes a connection past its own cap before any listener sees it: room for the
  // connections served and for the refused ones held (refuse), each counted below.
  server.maxConnections = 2 * cap;

  const max = config.GATEWAY_MAX_CONNECTIONS_PER_ADDRESS;
  const retryAfterS = config.GATEWAY_KEEPALIVE_TIMEOUT_S;
  const tooMany = answer('PREA_MULTE_CONEXIUNI', `Adresa are deja ${max} conexiuni deschise (GATEWAY_MAX_CONNECTIONS_PER_ADDRESS).`, { 'Retry-After': String(retryAfterS) });
  const refused = new WeakSet<Socket>();
  const perPeer = perKeyCounter(max);
  const perForwarded = perKeyCounter(max);
  const paused = pausedAddresses();
  /** Connections of a paused address waiting to be read: as many as it may hold; past them, refused as past its cap. */
  const waiting = perKeyCounter(max);
  let open = 0;
  let held = 0;

  /**
   * Answered 429 at once, then held unread until its Retry-After and closed. A client that
   * ignores the answer and keeps its socket costs nothing meanwhile; closed at once, such a
   * client reconnected straight away, and a thousand sockets of one address kept the server's
   * event loop busy refusing them (bench:abuse, attack 3: ~7,500 refusals a second). A client
   * that reads the answer closes its side itself. At most GATEWAY_MAX_CONNECTIONS are held;
   * past them, closed at once as before.
   */
  function refuse(socket: Socket) {
    refused.add(socket);
    socket.write(raw(tooMany));
    if (held >= cap) return void socket.destroySoon();
    held++;
    // On the next tick: see the paused address's wait below.
    process.nextTick(() => socket.pause());
    const timer = setTimeout(() => socket.destroy(), retryAfterS * 1000).unref();
    socket.once('close', () => {
      clearTimeout(timer);
      held--;
    });
  }

  function admit(socket: Socket, address: string) {
    const release = perPeer.enter(address);
    if (release) socket.once('close', release);
    else refuse(socket);
  }

  server.on('connection', (socket: Socket) => {
    // GATEWAY_MAX_CONNECTIONS, as Node's own cap did before the held refusals had room.
    if (open - held >= cap) return void socket.destroy();
    open++;
    socket.once('close', () => open--);
    if (isTrustedProxy(config, socket.remoteAddress)) return;
    const address = socket.remoteAddress ?? '';
    const waitMs = paused.remaining(address);
    if (waitMs === 0) return admit(socket, address);
    const leave = waiting.enter(address);
    if (!leave) return refuse(socket);
    // Node reads the connection once it flows again. Paused on the next tick: Node's own
    // listener has scheduled the socket's first resume for it, which would undo a pause now.
    process.nextTick(() => socket.pause());
    const timer = setTimeout(() => {
      leave();
      if (socket.destroyed) return;
      admit(socket, address);
      socket.resume();
    }, waitMs).unref();
    socket.once('close', () => {
      clearTimeout(timer);
      leave();
    });
  });

  const watch = watchBodies(config.GATEWAY_BODY_TIMEOUT_S * 1000);
  const listeners = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // A held refusal's request, parsed from bytes that came before it was paused: left unanswered.
    if (refused.has(req.socket)) return;
    if (isTrustedProxy(config, req.socket.remoteAddress)) {
      const release = perForwarded.enter(clientAddressOfRequest(config, req));
      if (!release) return void res.writeHead(tooMany.status, tooMany.headers).end(tooMany.body);
      res.once('close', release);
      // A proxy's connection carries other clients too: it is never paused.
    } else res.once('finish', () => pauseIfRefused(req, res, paused));
    watch(req, res);
    for (const listener of listeners) listener.call(server, req, res);
  });
}

/**
 * After a refusal, the client waits REFUSED_PAUSE_MS. A connection kept alive after a 429 is not
 * read meanwhile (Node reads its next request once the socket flows again). A 429 that closes
 * its connection, or a refusal that leaves a body unread and closes its connection, leaves the
 * wait to the address's new connections. Any other refusal (a 422 to a client that closes its
 * connections) waits for nothing.
 */
function pauseIfRefused(req: IncomingMessage, res: ServerResponse, paused: PausedAddresses): void {
  if (res.statusCode < 400) return;
  const { socket } = req;
  // Node ends a connection as soon as its last answer is written (Connection: close, or a body left unread).
  const closing = socket.writableEnded || socket.destroyed;
  if (closing) {
    if (res.statusCode === 429 || !req.complete) paused.start(socket.remoteAddress ?? '');
    return;
  }
  if (res.statusCode !== 429) return;
  socket.pause();
  setTimeout(() => {
    if (!socket.destroyed) socket.resume();
  }, REFUSED_PAUSE_MS).unref();
}

type PausedAddresses = ReturnType<typeof pausedAddresses>;

/** Client addresses whose new connections wait, each until REFUSED_PAUSE_MS after its last closing refusal. */
function pausedAddresses() {
  const until = new Map<string, number>();
  return {
    start(address: string) {
      const now = performance.now();
      if (until.size >= MAX_PAUSED_ADDRESSES) {
        for (const [key, end] of until) if (end <= now) until.delete(key);
        if (until.size >= MAX_PAUSED_ADDRESSES) until.delete(until.keys().next().value!);
      }
      // Deleted first, so that the map's order stays the order of the pauses' ends.
      until.delete(address);
      until.set(address, now + REFUSED_PAUSE_MS);
    },
    /** Milliseconds the address's new connections still wait (0: none). */
    remaining(address: string): number {
      const end = until.get(address);
      if (end === undefined) return 0;
      const left = end - performance.now();
      if (left > 0) return left;
      until.delete(address);
      return 0;
    },
  };
}

/** Counts what each key holds: `enter` gives the function that gives the place back, or null past `max`. */
function perKeyCounter(max: number) {
  const held = new Map<string, number>();
  return {
    enter(key: string): (() => void) | null {
      const count = held.get(key) ?? 0;
      if (count >= max) return null;
      held.set(key, count + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = held.get(key)! - 1;
        if (left === 0) held.delete(key);
        else held.set(key, left);
      };
    },
  };
}

type Watched = { req: IncomingMessage; res: ServerResponse; at: number; waitedMs: number; bytesAtStart: number };

/**
 * Bodies that keep the server waiting are cut: a body may keep it waiting `timeoutMs`, plus a
 * second per kilobyte it has delivered (so a large upload on a slow line goes on, up to
 * GATEWAY_REQUEST_TIMEOUT_S, while one sent a byte at a time ends within seconds). Only time
 * the server spends waiting counts: while unread bytes of the body are buffered (the handler
 * has not got to them yet, or waits for its turn) the delay is ours, not the client's. One
 * timer checks every body in progress.
 */
function watchBodies(timeoutMs: number) {
  const watched = new Set<Watched>();
  const tickMs = Math.min(500, timeoutMs / 4);
  const tooSlow = raw(answer('CORP_PREA_LENT', `Corpul cererii nu a sosit la timp (GATEWAY_BODY_TIMEOUT_S: ${timeoutMs / 1000} s, plus o secundă pe kilooctet primit).`));
  let timer: NodeJS.Timeout | undefined;

  function check() {
    const now = performance.now();
    for (const entry of watched) {
      const { req, res } = entry;
      if (req.complete || req.socket.destroyed) {
        watched.delete(entry);
        continue;
      }
      if (req.readableLength < req.readableHighWaterMark) entry.waitedMs += now - entry.at;
      entry.at = now;
      const delivered = req.socket.bytesRead - entry.bytesAtStart;
      if (entry.waitedMs > timeoutMs + (delivered / BODY_BYTES_PER_S) * 1000) {
        watched.delete(entry);
        cut(req.socket, res);
      }
    }
    if (watched.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  // The handler may still be reading: it sees the body cut off (the catalog's CORP_ILIZIBIL
  // path), and its own answer goes nowhere. This one goes first if nothing was sent yet.
  function cut(socket: Socket, res: ServerResponse) {
    if (!res.headersSent) socket.write(tooSlow);
    socket.destroySoon();
  }

  return (req: IncomingMessage, res: ServerResponse) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (!(declared > 0 || req.headers['transfer-encoding'] !== undefined)) return;
    watched.add({ req, res, at: performance.now(), waitedMs: 0, bytesAtStart: req.socket.bytesRead });
    timer ??= setInterval(check, tickMs).unref();
  };
}

type Answer = { status: number; headers: Record<string, string>; body: string };

/** An answer in the catalog's words, after which the connection is closed. */
function answer(cod: RequestErrorCode, cauza: string, headers: Record<string, string> = {}): Answer {
  const body = JSON.stringify(errorBody(cod, cauza, null));
  const length = String(Buffer.byteLength(body));
  return { status: statusOf(cod), headers: { 'Content-Type': 'application/json; charset=UTF-8', 'Content-Length': length, Connection: 'close', ...headers }, body };
}

/** The answer as bytes on the wire, for a socket no response of Node's owns (yet). */
function raw({ status, headers, body }: Answer): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}
