import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { describeError } from '../journal/describe-error';
import type { Journal } from '../journal/journal';
import type { ExportFile } from '../services/export/file';

/** Thrown into the producer when the client has gone: nothing more is read or encoded. */
class ClientGone extends Error {}

/**
 * A file streamed to the client as it is produced: memory stays bounded by the chunks in
 * flight, whatever the file's size. Exports hold personal data, so they are never cached and
 * never sniffed into something a browser would render. A failure after the first byte cannot
 * become an error status: the connection is aborted so the client sees an incomplete
 * download, not a short file that looks whole; the journal describes the error as every
 * unexpected one is (describe-error.ts: never a database error's message or parameters).
 */
export function streamDownload(c: Context, journal: Journal, download: ExportFile): Response {
  c.header('Content-Type', download.contentType);
  c.header('Content-Disposition', `attachment; filename="${download.filename}"`);
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('Cache-Control', 'no-store');
  return stream(
    c,
    async (out) => {
      await download.produce(async (chunk) => {
        if (out.aborted) throw new ClientGone();
        await out.write(chunk);
      });
    },
    async (error, out) => {
      if (!(error instanceof ClientGone)) {
        journal.write({ event: 'export_intrerupt', level: 'error', requestId: c.get('requestId') as string | undefined, data: { path: c.req.path, error: describeError(error) } });
      }
      out.abort();
    },
  );
}
