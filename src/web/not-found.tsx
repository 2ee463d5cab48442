import type { Context } from 'hono';
import type { AppContext } from '../context';
import { noStore } from '../http/headers';
import { accountAlerts } from '../services/accounts/alerts';
import { findSession, userActor } from '../services/users/sessions';
import type { WebEnv } from './env';
import { BareLayout, Layout } from './layout';
import { webHeaders } from './security';
import { sessionToken } from './session';

/** What a path the dashboard does not have answers, with the way back. */
function Missing({ signedIn }: { signedIn: boolean }) {
  return (
    <section class="card missing">
      <h1>Pagina nu există</h1>
      <p>Adresa cerută nu corespunde niciunei pagini a gateway-ului. Poate a fost scrisă greșit sau provine dintr-un link vechi.</p>
      <p>
        {signedIn ? (
          <a href="/">Înapoi la Trimiteri</a>
        ) : (
          <>
            <a href="/login">Autentificați-vă</a> pentru a continua.
          </>
        )}
      </p>
    </section>
  );
}

/**
 * The 404 of a dashboard path (app.ts sends /v1 and the API's documents to the JSON one): a
 * page in the layout, with the tabs for a signed-in user (a path under a signed-in prefix
 * came through the session middleware, which sent a visitor to /login already), the bare
 * layout otherwise. With the dashboard's headers (CSP), never cached.
 */
export function webNotFound(ctx: AppContext) {
  return async (c: Context): Promise<Response> => {
    // Under a signed-in prefix the session middleware has found it already.
    const token = sessionToken(c, ctx);
    const session = (c as Context<WebEnv>).var.session ?? (token ? await findSession(ctx, token) : null);
    const render = async () => {
      if (!session) {
        c.res = await c.html(
          <BareLayout title="Pagina nu există">
            <Missing signedIn={false} />
          </BareLayout>,
          404,
        );
        return;
      }
      const alerts = (c as Context<WebEnv>).var.alerts ?? (await accountAlerts({ ctx, actor: userActor(session.user) }));
      c.res = await c.html(
        <Layout title="Pagina nu există" user={session.user} csrfToken={session.csrfToken} alerts={alerts}>
          <Missing signedIn />
        </Layout>,
        404,
      );
    };
    await webHeaders(c, async () => {
      await noStore(c, render);
    });
    return c.res;
  };
}
