import { Hono } from 'hono';
import type { WebEnv } from './env';
import { Layout } from './layout';

/** Integrare: a placeholder until its issue brings the code examples; it says what to use meanwhile. */
export function integrareRoutes() {
  return new Hono<WebEnv>().get('/integrare', (c) => {
    const { user, csrfToken } = c.get('session');
    return c.html(
      <Layout title="Integrare" tab="integrare" user={user} csrfToken={csrfToken} alerts={c.get('alerts')}>
        <h1>Integrare</h1>
        <p class="muted">
          Exemplele de integrare (API JSON și import de fișiere, în mai multe limbaje) urmează. Până atunci: documentația API este la /docs, iar descrierea OpenAPI la
          /openapi.json.
        </p>
      </Layout>,
    );
  });
}
