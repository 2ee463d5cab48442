import { Hono } from 'hono';
import type { WebEnv } from './env';
import { Layout, type Tab } from './layout';

const COMING: Array<{ path: string; tab: Tab; title: string; text: string }> = [
  { path: '/jurnal', tab: 'jurnal', title: 'Jurnal', text: 'Jurnalul filtrabil urmează. Până atunci, jurnalul este în fișierul din GATEWAY_DATA_DIR.' },
  { path: '/cont', tab: 'cont', title: 'Cont', text: 'Pagina contului urmează. Până atunci, cheile se gestionează cu npm run keys.' },
  { path: '/integrare', tab: 'integrare', title: 'Integrare', text: 'Exemplele de integrare (API JSON și import de fișiere) urmează.' },
];

/** Tabs whose screens come with later issues: each says so and what to use meanwhile. */
export function placeholderRoutes() {
  const app = new Hono<WebEnv>();
  for (const page of COMING) {
    app.get(page.path, (c) => {
      const { user, csrfToken } = c.get('session');
      return c.html(
        <Layout title={page.title} tab={page.tab} user={user} csrfToken={csrfToken}>
          <h1>{page.title}</h1>
          <p class="muted">{page.text}</p>
        </Layout>,
      );
    });
  }
  return app;
}
