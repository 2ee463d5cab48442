import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDashboardPath, routePatterns } from '../../src/web';
import { startTestApp, type TestApp } from '../helpers/app';
import { WEB_FORM_PATHS } from '../helpers/web';

// The dashboard's paths are read off its routes, not kept as lists beside them.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const placeholders = (path: string) => path.replace(':code', 'X1').replace(/:\w+/g, '1');

describe('the dashboard routes', () => {
  it('every form the dashboard answers is one the form tests send (WEB_FORM_PATHS), and no other', () => {
    const posted = t.app.routes.filter((r) => r.method === 'POST' && isDashboardPath(r.path)).map((r) => placeholders(r.path));
    expect([...new Set(posted)].sort()).toEqual([...WEB_FORM_PATHS].sort());
  });

  it('covers every screen route, and neither the API nor the health and metrics routes', () => {
    for (const route of t.app.routes.filter((r) => r.method === 'GET' && !r.path.includes('*'))) {
      const api = route.path.startsWith('/v1') || route.path.startsWith('/docs') || ['/healthz', '/metrics', '/openapi.json'].includes(route.path);
      expect(isDashboardPath(route.path), route.path).toBe(!api);
    }
  });

  it('binds a segment with paths under it as /segment/*, a lone path as itself, the home page alone', () => {
    const screen = (...paths: string[]) => ({ routes: paths.map((path) => ({ path })) });
    expect(routePatterns([screen('/', '/jurnal'), screen('/mapari', '/mapari/:code/sterge', '/_fragments/mapari')])).toEqual(['/', '/jurnal', '/mapari/*', '/_fragments/*']);
  });
});
