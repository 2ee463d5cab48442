import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';

/** public/ of this checkout, found upwards from this file (src/web when run from source, dist when built). */
function publicDir(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'public', 'app.js'))) return join(dir, 'public');
  }
  throw new Error('public/ not found beside the server');
}

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/**
 * The dashboard's assets, read once at start: htmx from node_modules (no CDN), our script
 * and stylesheet from public/. Revalidated by ETag, so a deploy is picked up at once.
 */
export function staticRoutes() {
  const dir = publicDir();
  const htmx = join(dirname(createRequire(import.meta.url).resolve('htmx.org/package.json')), 'dist', 'htmx.min.js');
  const files = new Map(
    Object.entries({
      'htmx.min.js': htmx,
      'app.js': join(dir, 'app.js'),
      'import.js': join(dir, 'import.js'),
      'integrare.js': join(dir, 'integrare.js'),
      'app.css': join(dir, 'app.css'),
    }).map(([name, path]) => {
      const body = readFileSync(path);
      return [name, { body, type: TYPES[name.split('.').pop()!]!, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` }];
    }),
  );
  return new Hono().get('/static/:name', (c) => {
    const file = files.get(c.req.param('name'));
    if (!file) return c.notFound();
    const headers = { 'Content-Type': file.type, ETag: file.etag, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' };
    if (c.req.header('if-none-match') === file.etag) return c.body(null, 304, headers);
    return c.body(file.body, 200, headers);
  });
}
