import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { CATALOG, type ErrorCode } from '../errors';

/**
 * Every HTTP error but the shape errors (422) has the same six keys. A 404 carries no
 * request id, so a missing id and another account's id answer byte for byte the same.
 */
export function errorBody(status: number, cod: ErrorCode, cauza: string, requestId: string | null) {
  const { problema, fix } = CATALOG[cod];
  return { status, cod, problema, cauza, fix, request_id: requestId };
}

export function errorResponse(c: Context, status: ContentfulStatusCode, cod: ErrorCode, cauza: string) {
  return c.json(errorBody(status, cod, cauza, status === 404 ? null : (c.get('requestId') as string)), status);
}

export const NOT_FOUND_BODY = JSON.stringify(errorBody(404, 'NEGASIT', 'Resursa cerută nu există.', null));

export function notFound(c: Context) {
  return c.body(NOT_FOUND_BODY, 404, { 'Content-Type': 'application/json' });
}

export interface ShapeIssue {
  type: string;
  loc: Array<string | number>;
  msg: string;
}

/** The 422 of a malformed body or query: type, loc and msg only, never the input. */
export function shapeError(c: Context, detail: ShapeIssue[]) {
  return c.json({ detail }, 422);
}
