import type { Context } from 'hono';
import type { AppContext } from '../context';
import { describeError } from '../journal/describe-error';

/** Journals an error no handler expected (class, SQLSTATE, frames; never a message or parameters) and returns the request id to quote. */
export function reportUnexpected(ctx: AppContext, c: Context, error: unknown): string {
  const id = c.get('requestId') as string;
  ctx.journal.write({
    event: 'eroare_neprevazuta',
    level: 'error',
    requestId: id,
    data: { path: c.req.path, method: c.req.method, error: describeError(error) },
  });
  return id;
}
