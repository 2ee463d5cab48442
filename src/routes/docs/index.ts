import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { RouterRoute } from 'hono/types';
import { describeRoute, openApiDocument } from '../../openapi';
import type { AppEnv } from '../../http/env';
import { OWN_PAGES_CSP } from '../../http/headers';

// Swagger UI is served from node_modules: no CDN, works offline.
const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="ro"><head><meta charset="utf-8"><title>API — documentație</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;

/**
 * Swagger UI runs from our own files only: its bundle and /docs/init.js (no inline script, no
 * eval), its stylesheet and the inline SVG icons it draws with (`data:`), and it fetches only
 * /openapi.json and the API it tries out. No page may frame it.
 */
const docsHeaders = secureHeaders({
  contentSecurityPolicy: { ...OWN_PAGES_CSP, defaultSrc: ["'none'"], fontSrc: ["'self'"] },
  referrerPolicy: 'same-origin',
  crossOriginEmbedderPolicy: false,
  crossOriginOpenerPolicy: false,
});

/** `routes` gives the whole app's routes (`base`: the public address, the document's server); the document is built from them at its first request, once all are registered. */
export function docsRoutes(routes: () => readonly RouterRoute[], base: string) {
  const app = new Hono<AppEnv>();
  let document: string | undefined;
  // `/docs/*` covers /docs too; a middleware on an exact path would be an undocumented route.
  app.use('/docs/*', docsHeaders);
  app.get('/openapi.json', describeRoute({ summary: 'Acest document OpenAPI', responses: { 200: 'Documentul OpenAPI 3.1' } }), (c) => {
    document ??= JSON.stringify(openApiDocument(routes(), base));
    return c.body(document, 200, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' });
  });
  app.get(
    '/docs',
    describeRoute({
      summary: 'Documentația interactivă (Swagger UI)',
      responses: { 200: { description: 'Pagina HTML', contentType: 'text/html' } },
    }),
    (c) => c.html(PAGE),
  );
  // No validator badge: it is an image from validator.swagger.io, which the CSP refuses.
  app.get('/docs/init.js', describeRoute({ summary: 'Pornirea Swagger UI', responses: { 200: { description: 'Script', contentType: 'text/javascript' } } }), (c) =>
    c.body("window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', validatorUrl: null });", 200, { 'Content-Type': 'text/javascript; charset=utf-8' }),
  );
  app.get('/docs/assets/:file', describeRoute({ summary: 'Fișierele Swagger UI (din node_modules)', responses: { 200: 'Fișierul cerut' } }), async (c) => {
    const file = c.req.param('file');
    // Own keys only: `constructor` or `__proto__` must not name a file.
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) return c.notFound();
    return c.body(await readFile(join(swaggerDir, file)), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
  return app;
}
