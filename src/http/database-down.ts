import type { Context } from 'hono';
import { isDatabaseUnavailable } from '../../db/unavailable';
import { errorResponse } from './envelope';

/**
 * What a client is told to wait while the database cannot be reached: a restart takes a few
 * seconds, a managed database's failover 20–60; a client that retries every 5 s finds it back
 * soon after, and a load balancer's health check sees /healthz say the same.
 */
export const DATABASE_RETRY_AFTER_S = 5;

export { isDatabaseUnavailable };

/** The cause a 503 BAZA_INDISPONIBILA carries, the API's and the dashboard's. */
export const DATABASE_DOWN_CAUSE = 'Conexiunea la baza de date s-a pierdut; serverul se reconectează singur.';

/** The API's answer to a request the database could not serve: 503 BAZA_INDISPONIBILA with Retry-After. */
export function databaseDown(c: Context) {
  c.header('Retry-After', String(DATABASE_RETRY_AFTER_S));
  return errorResponse(c, 'BAZA_INDISPONIBILA', DATABASE_DOWN_CAUSE);
}
