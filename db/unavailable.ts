// Whether an error means "the database cannot be reached now" (a restart, a failover, a lost
// network), as opposed to a query the database refused. The first is answered 503 with
// Retry-After and retried by the worker's loops; the second is a bug or a conflict.

/** postgres.js's own codes for a connection it lost or could not open. */
const CLIENT_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);
/** The socket's: refused (nothing listens), reset, unreachable, a name that does not resolve now. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * SQLSTATEs of a server going away or not there yet: 57P01 admin shutdown, 57P02 crash
 * shutdown, 57P03 starting up or in recovery, and a primary demoted by a failover that
 * refuses writes now (25006), which a managed database's old address can answer for a while.
 */
const SERVER_STATES = new Set(['57P01', '57P02', '57P03', '25006']);

/** The error or one of its causes (drizzle wraps the driver's error as `cause`). */
function* chain(error: unknown): Generator<{ code?: unknown }> {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    yield e as { code?: unknown };
  }
}

export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of chain(error)) {
    const code = e.code;
    if (typeof code !== 'string') continue;
    // Class 08: connection exceptions the server reports itself.
    if (CLIENT_CODES.has(code) || SOCKET_CODES.has(code) || SERVER_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  // An AggregateError (a host name with several addresses, each refused) carries its errors.
  return error instanceof AggregateError && error.errors.some(isDatabaseUnavailable);
}

/**
 * postgres.js 3.4 can throw outside any promise when a connection is lost under a transaction:
 * the transaction, already rejected (CONNECTION_CLOSED), writes its ROLLBACK on the closed
 * connection, and that write runs in a setImmediate after the socket is gone (connection.js,
 * nextWrite). Nothing waits for that write; the process must not end for it.
 */
export function isLostConnectionWrite(error: unknown): boolean {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  return error instanceof TypeError && error.message.includes("reading 'write'") && /nextWrite/.test(stack) && /postgres[\\/]src[\\/]connection\.js/.test(stack);
}
