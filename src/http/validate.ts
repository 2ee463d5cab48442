import type { Context, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { shapeError, type ShapeIssue } from './envelope';

function issues(error: z.ZodError, where: 'body' | 'query'): ShapeIssue[] {
  return error.issues.slice(0, 50).map((i) => ({ type: i.code, loc: [where, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))], msg: i.message }));
}

/**
 * Parses the JSON body against `schema`. Malformed JSON and a wrong shape are both a 422
 * in the spec's form (Hono's own validator would answer 400 and echo nothing useful).
 */
export function jsonBody<S extends z.ZodType>(schema: S): MiddlewareHandler<{ Variables: { body: z.infer<S>; rawBody?: Buffer } }> {
  return async (c, next) => {
    let raw: unknown;
    // Read (within the size limit) by the app's body middleware, whatever its declared type;
    // tests may call routes directly.
    const read = c.get('rawBody');
    const text = read ? read.toString('utf8') : await c.req.text();
    try {
      raw = JSON.parse(text);
    } catch (error) {
      const msg = text.trim() === '' ? 'Corpul cererii este gol; se așteaptă JSON.' : `JSON invalid: ${(error as Error).message.replace(/"[^"]*"/g, '…').slice(0, 120)}`;
      return shapeError(c, [{ type: 'json_invalid', loc: ['body'], msg }]);
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) return shapeError(c, issues(parsed.error, 'body'));
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

/** A date query parameter (YYYY-MM-DD). */
export const IsoDateParam = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Data trebuie să fie AAAA-LL-ZZ');
