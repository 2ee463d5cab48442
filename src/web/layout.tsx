import type { Child } from 'hono/jsx';
import type { SessionUser } from '../services/users/sessions';

export type Tab = 'trimiteri' | 'mapari' | 'jurnal' | 'cont' | 'integrare';

const TABS: Array<{ id: Tab; href: string; label: string }> = [
  { id: 'trimiteri', href: '/', label: 'Trimiteri' },
  { id: 'mapari', href: '/mapari', label: 'Mapări' },
  { id: 'jurnal', href: '/jurnal', label: 'Jurnal' },
  { id: 'cont', href: '/cont', label: 'Cont' },
  { id: 'integrare', href: '/integrare', label: 'Integrare' },
];

/** The head every page shares: no inline script or style (the CSP forbids them). */
function Head({ title, csrfToken }: { title: string; csrfToken?: string }) {
  return (
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      {csrfToken ? <meta name="csrf-token" content={csrfToken} /> : null}
      {/* htmx would otherwise insert its indicator CSS inline, which the CSP refuses. */}
      <meta name="htmx-config" content='{"includeIndicatorCSS": false}' />
      <title>{`${title} · Gateway prezentări`}</title>
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href="/static/app.css" />
      <script src="/static/htmx.min.js" defer></script>
      <script src="/static/app.js" defer></script>
    </head>
  );
}

/** A signed-in page: tabs, who is signed in, sign-out (a form, so it carries the CSRF token). */
export function Layout({
  title,
  tab,
  user,
  csrfToken,
  skipTo,
  children,
}: {
  title: string;
  tab: Tab;
  user: SessionUser;
  csrfToken: string;
  skipTo?: { href: string; label: string };
  children: Child;
}) {
  return (
    <html lang="ro">
      <Head title={title} csrfToken={csrfToken} />
      <body>
        {/* A page's own skip link comes before the tabs, so it is the first thing Tab reaches. */}
        {skipTo ? (
          <a class="skip" href={skipTo.href}>
            {skipTo.label}
          </a>
        ) : null}
        <header class="top">
          <span class="brand">Gateway prezentări</span>
          <nav aria-label="Secțiuni">
            {TABS.map((t) => (
              <a href={t.href} aria-current={t.id === tab ? 'page' : undefined}>
                {t.label}
              </a>
            ))}
          </nav>
          <form method="post" action="/logout" class="who">
            <span>
              {user.email} · contul {user.accountId}
              {user.admin ? ' · administrator' : ''}
            </span>
            <input type="hidden" name="_csrf" value={csrfToken} />
            <button type="submit">Ieșire</button>
          </form>
        </header>
        <main id="continut">{children}</main>
      </body>
    </html>
  );
}

/** A page without a session (sign-in). */
export function BareLayout({ title, children }: { title: string; children: Child }) {
  return (
    <html lang="ro">
      <Head title={title} />
      <body class="bare">
        <main>{children}</main>
      </body>
    </html>
  );
}
