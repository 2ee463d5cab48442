import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppEnv } from './env';

export class BodyTooLargeError extends Error {}

/**
 * The request body as text, refused past `maxBytes`. Under @hono/node-server it is read
 * straight from Node's request (building a web Request with a body stream for every POST
 * costs more than the rest of the request); elsewhere (tests' app.request) from c.req.
 */
export async function readBodyText(c: Context, maxBytes: number): Promise<string> {
  const declared = Number(c.req.header('content-length') ?? 0);
  if (declared > maxBytes) throw new BodyTooLargeError();
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > maxBytes) throw new BodyTooLargeError();
    return text;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      incoming.resume();
      throw new BodyTooLargeError();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

const WITHOUT_BODY = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Bodies within `maxBytes` or a 413: a JSON body is read here once (jsonBody parses it),
 * any other (a file upload) is left to Hono's bodyLimit.
 */
export function limitBody(maxBytes: number, tooLarge: (c: Context) => Response): MiddlewareHandler<AppEnv> {
  const others = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    if (WITHOUT_BODY.has(c.req.method)) return next();
    if (!(c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json')) return others(c, next);
    try {
      c.set('bodyText', await readBodyText(c, maxBytes));
    } catch (error) {
      if (error instanceof BodyTooLargeError) return tooLarge(c);
      throw error;
    }
    return next();
  };
}
