import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Context, MiddlewareHandler } from 'hono';
import { zValidator } from '@hono/zod-validator';
import { z } from 'zod';
import { isIsoDate } from '../domain/dates';
import { hasUnstorableChar } from '../domain/text';
import { shapeError, type ShapeIssue } from './envelope';
import { findUnstorable, MAX_JSON_DEPTH, MAX_JSON_VALUES, scanJson, syntaxErrorOffset } from './json-guard';
import './zod-locale';

const UNSTORABLE_MSG = 'Textul conține un caracter nepermis (NUL sau un surogat UTF-16 fără pereche).';

/**
 * zod's issues as the spec's 422 entries. Messages come from the Romanian locale, except the
 * one that would name the sender's own keys: an answer never repeats what was sent.
 */
function issues(error: { issues: readonly z.core.$ZodIssue[] }, where: 'body' | 'query' | 'form'): ShapeIssue[] {
  return error.issues.slice(0, 50).map((i) => ({
    type: i.code,
    loc: [where, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: i.code === 'unrecognized_keys' ? 'Obiectul conține câmpuri necunoscute.' : i.message,
  }));
}

function unstorable(c: Context, loc: Array<string | number>) {
  return shapeError(c, [{ type: 'unstorable_char', loc, msg: UNSTORABLE_MSG }]);
}

/** A body past this is decoded and parsed in steps, each in a turn of the event loop of its own. */
const LARGE_BODY = 256 * 1024;

/**
 * Parses the JSON body against `schema`. Malformed JSON and a wrong shape are both a 422
 * in the spec's form (Hono's own validator would answer 400 and echo nothing useful). A large
 * body's steps (decoding, parsing, the schema) each take tens of milliseconds for a 14 MB
 * photo: between them, the other requests waiting go first, instead of after all of them.
 */
export function jsonBody<S extends z.ZodType>(schema: S): MiddlewareHandler<{ Variables: { body: z.infer<S>; rawBody?: Buffer } }> {
  return async (c, next) => {
    let raw: unknown;
    // Read (within the size limit) by the app's body middleware, whatever its declared type;
    // tests may call routes directly.
    const bytes = c.get('rawBody') ?? Buffer.from(await c.req.arrayBuffer());
    const scanned = scanJson(bytes);
    if (scanned) {
      const msg =
        scanned.kind === 'depth'
          ? `JSON-ul are mai mult de ${MAX_JSON_DEPTH} niveluri de imbricare (poziția ${scanned.offset}).`
          : `JSON-ul are mai mult de ${MAX_JSON_VALUES} valori (poziția ${scanned.offset}).`;
      return shapeError(c, [{ type: 'json_too_complex', loc: ['body'], msg }]);
    }
    const large = bytes.length > LARGE_BODY;
    if (large) await nextTurn();
    const text = bytes.toString('utf8');
    if (large) await nextTurn();
    try {
      raw = JSON.parse(text);
    } catch (error) {
      const offset = syntaxErrorOffset(error);
      const msg = text.trim() === '' ? 'Corpul cererii este gol; se așteaptă JSON.' : `JSON invalid${offset === null ? '' : ` la poziția ${offset}`}.`;
      return shapeError(c, [{ type: 'json_invalid', loc: ['body'], msg }]);
    }
    if (large) await nextTurn();
    const parsed = schema.safeParse(raw);
    if (!parsed.success) return shapeError(c, issues(parsed.error, 'body'));
    const bad = findUnstorable(parsed.data);
    if (bad) return unstorable(c, ['body', ...bad]);
    c.set('body', parsed.data);
    await next();
  };
}

/** Parses the query string against `schema`; a bad value is a 422 like a bad body. */
export function parseQuery<S extends z.ZodType>(c: Context, schema: S): { ok: true; data: z.infer<S> } | { ok: false; response: Response } {
  const parsed = schema.safeParse(c.req.query());
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, response: shapeError(c, issues(parsed.error, 'query')) };
}

/**
 * The query string validated by `schema` (@hono/zod-validator), read in the handler with
 * `c.req.valid('query')`; a bad value is the spec's 422, not the validator's own 400. A
 * repeated parameter arrives as an array.
 */
export const validQuery = <S extends z.ZodType>(schema: S) =>
  zValidator('query', schema, (result, c) => {
    if (!result.success) return shapeError(c, issues(result.error, 'query'));
  });

/**
 * A path or query string that decodes to a NUL (`%00`) names nothing the API stores: a 422
 * before any route reads it (a parameter's name is never repeated in the answer).
 */
export const rejectUnstorableUrl: MiddlewareHandler = async (c, next) => {
  if (hasUnstorableChar(c.req.path)) return unstorable(c, ['path']);
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (hasUnstorableChar(name) || values.some(hasUnstorableChar)) return unstorable(c, ['query']);
  }
  await next();
};

/**
 * A date taken from a query or a form (YYYY-MM-DD), on the API and the dashboard alike: a day
 * of the calendar, not only its shape. `2025-02-30` passed the shape and reached PostgreSQL's
 * `::date` as a 500.
 */
const DATE_MSG = 'Data trebuie să fie o zi din calendar, în forma AAAA-LL-ZZ';
export const IsoDateParam = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, DATE_MSG)
  .refine(isIsoDate, DATE_MSG);
