import type { Context } from 'hono';
import { z } from 'zod';
import { CATALOG, type ErrorCode, type RequestErrorCode } from '../errors';
import { statusOf } from './status';

const ERROR_CODES = Object.keys(CATALOG) as [ErrorCode, ...ErrorCode[]];

/** The six keys of every HTTP error but a shape error; the OpenAPI document describes errors by it. */
export const ErrorEnvelope = z.object({
  status: z.number().int(),
  cod: z.enum(ERROR_CODES),
  problema: z.string(),
  cauza: z.string(),
  fix: z.string(),
  request_id: z.string().nullable(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

export const ShapeIssue = z.object({ type: z.string(), loc: z.array(z.union([z.string(), z.number()])), msg: z.string() });
export type ShapeIssue = z.infer<typeof ShapeIssue>;
/** The 422 of a malformed body, query or path: type, loc and msg of each problem, never the input. */
export const ShapeError = z.object({ detail: z.array(ShapeIssue) });
export type ShapeError = z.infer<typeof ShapeError>;

/**
 * Every HTTP error but the shape errors (422) has the same six keys, the status read from the
 * code (status.ts). A 404 carries no request id, so a missing id and another account's id
 * answer byte for byte the same.
 */
export function errorBody(cod: RequestErrorCode, cauza: string, requestId: string | null): ErrorEnvelope {
  const { problema, fix } = CATALOG[cod];
  return { status: statusOf(cod), cod, problema, cauza, fix, request_id: requestId };
}

export function errorResponse(c: Context, cod: RequestErrorCode, cauza: string) {
  const status = statusOf(cod);
  return c.json(errorBody(cod, cauza, status === 404 ? null : (c.get('requestId') as string)), status);
}

export const NOT_FOUND_BODY = JSON.stringify(errorBody('NEGASIT', 'Resursa cerută nu există.', null));

export function notFound(c: Context) {
  return c.body(NOT_FOUND_BODY, 404, { 'Content-Type': 'application/json' });
}

/** The 422 of a malformed body or query: type, loc and msg only, never the input. */
export function shapeError(c: Context, detail: ShapeIssue[]) {
  return c.json({ detail } satisfies ShapeError, 422);
}
