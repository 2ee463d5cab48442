import type { AccountOverview } from '../../services/accounts/overview';
import type { SessionUser } from '../../services/users/sessions';
import { Layout } from '../layout';
import { Notice } from '../notice';
import { showInstant } from '../ui/format';

export type ContNotice = { kind: 'ok'; text: string } | { kind: 'error'; cod: 'CERERE_INVALIDA'; cauza: string };

function Credentials({ overview, csrfToken }: { overview: AccountOverview; csrfToken: string }) {
  return (
    <section id="creds" class="card">
      <h2>Credențialele registrului</h2>
      <p>
        {overview.hasCreds
          ? `Setate${overview.credsSetAt ? ` la ${showInstant(overview.credsSetAt)}` : ''}. Nu se afișează niciodată; le puteți înlocui sau șterge.`
          : 'Nesetate: trimiterile așteaptă până le salvați.'}
      </p>
      <form method="post" action="/cont/creds" class="stack" autocomplete="off">
        <label for="reg-user">Utilizator registru</label>
        <input id="reg-user" name="username" required maxlength={200} autocomplete="off" />
        <label for="reg-pass">Parola registrului</label>
        <input id="reg-pass" name="password" type="password" required maxlength={500} autocomplete="new-password" />
        <CsrfField token={csrfToken} />
        <button type="submit">{overview.hasCreds ? 'Înlocuiește credențialele' : 'Salvează credențialele'}</button>
      </form>
      {overview.hasCreds ? (
        <form method="post" action="/cont/creds/sterge" hx-post="/cont/creds/sterge" hx-confirm="Ștergeți credențialele registrului? Trimiterile vor aștepta până salvați altele.">
          <CsrfField token={csrfToken} />
          <button type="submit" class="danger">
            Șterge credențialele
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** A plain form post carries the session's CSRF token as a field. */
function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

/** Cont: keys (prefixes only), registry credentials (set or not, never shown), defaults, the registry session. */
export function ContPage({ user, csrfToken, overview, notice }: { user: SessionUser; csrfToken: string; overview: AccountOverview; notice?: ContNotice }) {
  return (
    <Layout title="Cont" tab="cont" user={user} csrfToken={csrfToken}>
      <h1>
        Contul {user.accountId}: {overview.name}
      </h1>
      {notice ? <Notice {...notice} /> : null}
      <section class="card">
        <h2>Chei API</h2>
        {overview.keys.length === 0 ? (
          <p class="muted">Nicio cheie. Se creează cu npm run keys -- create --account {user.accountId}.</p>
        ) : (
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Cheia (început)</th>
                <th scope="col">Nume</th>
                <th scope="col">Creată</th>
                <th scope="col">Stare</th>
              </tr>
            </thead>
            <tbody>
              {overview.keys.map((k) => (
                <tr>
                  <td class="mono">{k.prefix}…</td>
                  <td>{k.name ?? ''}</td>
                  <td>{showInstant(k.createdAt)}</td>
                  <td>{k.revokedAt ? `revocată la ${showInstant(k.revokedAt)}` : 'activă'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p class="muted small">O cheie se vede întreagă o singură dată, la creare; aici apare doar începutul ei.</p>
      </section>
      <Credentials overview={overview} csrfToken={csrfToken} />
      <section class="card">
        <h2>Registrul</h2>
        <dl class="fields">
          <dt>Sesiunea la registru</dt>
          <dd>
            {overview.registrySessionLive
              ? `activă (ultima autentificare la ${showInstant(overview.lastRegistryLogin)}, valabilă 30 de ore)`
              : overview.lastRegistryLogin
                ? `expirată (ultima autentificare la ${showInstant(overview.lastRegistryLogin)}); se reînnoiește la următoarea trimitere`
                : 'nicio autentificare încă'}
          </dd>
          <dt>Coduri nemapate</dt>
          <dd>
            {overview.rejectUnmappedByDefault
              ? 'respinse implicit (on_unmapped_error: true): o trimitere cu un cod nemapat nu se păstrează'
              : 'păstrate implicit ca „Cod de mapat” (on_unmapped_error: false), până le mapați'}
          </dd>
        </dl>
      </section>
    </Layout>
  );
}
