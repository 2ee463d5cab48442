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
 * How long a connection whose request was answered 429 is not read. The answer goes at once;
 * a client that ignores its Retry-After and sends the next request on the same connection
 * straight away waits for it there, instead of being refused thousands of times a second
 * (bench:abuse: five such clients of one account kept the server's event loop busy the whole
 * time, and another account's p95 went to 2–4 × its quiet value). One that honours Retry-After
 * (a second at least) never notices.
 */
const REFUSED_PAUSE_MS = 1_000;

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
 * kept-alive socket is closed, connections past the cap are refused (Node closes them at
 * once), and so are those of one client address past its own cap. A connection from a trusted
 * proxy (GATEWAY_TRUSTED_PROXIES) carries many clients: its requests count, each under its
 * forwarded address, while in progress, and the proxy answers for the connections themselves
 * (docs/operations-proxy.md).
 *
 * Called once the server has its request listener: the listener is put behind these checks.
 */
export function limitServer(server: Server, config: Limits): void {
  const options = serverOptions(config);
  server.requestTimeout = options.requestTimeout;
  server.headersTimeout = options.headersTimeout;
  server.keepAliveTimeout = options.keepAliveTimeout;
  server.maxConnections = config.GATEWAY_MAX_CONNECTIONS;

  const max = config.GATEWAY_MAX_CONNECTIONS_PER_ADDRESS;
  const retryAfter = { 'Retry-After': String(config.GATEWAY_KEEPALIVE_TIMEOUT_S) };
  const tooMany = answer('PREA_MULTE_CONEXIUNI', `Adresa are deja ${max} conexiuni deschise (GATEWAY_MAX_CONNECTIONS_PER_ADDRESS).`, retryAfter);
  const refused = new WeakSet<Socket>();
  const perPeer = perKeyCounter(max);
  const perForwarded = perKeyCounter(max);

  server.on('connection', (socket: Socket) => {
    if (isTrustedProxy(config, socket.remoteAddress)) return;
    const release = perPeer.enter(socket.remoteAddress ?? '');
    if (release) return void socket.once('close', release);
    refused.add(socket);
    socket.write(raw(tooMany));
    socket.destroySoon();
  });

  const watch = watchBodies(config.GATEWAY_BODY_TIMEOUT_S * 1000);
  const listeners = server.listeners('request') as Listener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (refused.has(req.socket)) return void req.socket.destroy();
    if (isTrustedProxy(config, req.socket.remoteAddress)) {
      const release = perForwarded.enter(clientAddressOfRequest(config, req));
      if (!release) return void res.writeHead(tooMany.status, tooMany.headers).end(tooMany.body);
      res.once('close', release);
      // A proxy's connection carries other clients too: it is never paused.
    } else res.once('finish', () => pauseIfRefused(req.socket, res));
    watch(req, res);
    for (const listener of listeners) listener.call(server, req, res);
  });
}

/** After a 429, the connection's next request is read REFUSED_PAUSE_MS later (Node reads it once the socket flows again). */
function pauseIfRefused(socket: Socket, res: ServerResponse): void {
  if (res.statusCode !== 429 || socket.destroyed) return;
  socket.pause();
  setTimeout(() => {
    if (!socket.destroyed) socket.resume();
  }, REFUSED_PAUSE_MS).unref();
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
