import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { AccountAlerts } from '../services/accounts/alerts';
import type { SessionUser } from '../services/users/sessions';
import { Banners } from './banners';

export type Tab = 'trimiteri' | 'mapari' | 'jurnal' | 'cont' | 'integrare';

/**
 * The first thing a keyboard reaches (visible only when focused): past the tabs, to the page's
 * content, or to what a page names (`skipTo`, e.g. the Trimiteri list) with its own words.
 */
function SkipLink({ to = 'continut', label = 'Sari la conținut' }: { to?: string; label?: string }) {
  return (
    <a class="skip" href={`#${to}`}>
      {label}
    </a>
  );
}

const TABS: Array<{ id: Tab; href: string; label: string }> = [
  { id: 'trimiteri', href: '/', label: 'Trimiteri' },
  { id: 'mapari', href: '/mapari', label: 'Mapări' },
  { id: 'jurnal', href: '/jurnal', label: 'Jurnal' },
  { id: 'cont', href: '/cont', label: 'Cont' },
  { id: 'integrare', href: '/integrare', label: 'Integrare' },
];

/** Standards mode: without it a browser lays the pages out in quirks mode (stray margins under forms). */
const DOCTYPE = raw('<!doctype html>');

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
      <script src="/static/import.js" defer></script>
      <script src="/static/integrare.js" defer></script>
    </head>
  );
}

/**
 * A signed-in page: tabs, who is signed in, sign-out (a form, so it carries the CSRF token), and
 * the account's banners (`alerts`, loaded once per page by web/alerts.ts). `tab` is absent on a
 * page of no tab (the 404).
 */
export function Layout({
  title,
  tab,
  user,
  csrfToken,
  alerts,
  skipTo,
  children,
}: {
  title: string;
  tab?: Tab;
  user: SessionUser;
  csrfToken: string;
  alerts?: AccountAlerts;
  skipTo?: { id: string; label: string };
  children: Child;
}) {
  return (
    <>
      {DOCTYPE}
      <html lang="ro">
        <Head title={title} csrfToken={csrfToken} />
        <body>
          <SkipLink to={skipTo?.id} label={skipTo?.label} />
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
          <Banners alerts={alerts} />
          <main id="continut" tabindex={-1}>
            {children}
          </main>
        </body>
      </html>
    </>
  );
}

/** A page without a session (sign-in). */
export function BareLayout({ title, children }: { title: string; children: Child }) {
  return (
    <>
      {DOCTYPE}
      <html lang="ro">
        <Head title={title} />
        <body class="bare">
          <SkipLink />
          <main id="continut" tabindex={-1}>
            {children}
          </main>
        </body>
      </html>
    </>
  );
}
