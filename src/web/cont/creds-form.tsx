import type { AccountAlerts } from '../../services/accounts/alerts';
import type { AccountOverview, LastLogin } from '../../services/accounts/overview';
import { countOf, showInstant } from '../ui/format';
import { CsrfField } from './csrf-field';

const LOGIN_RESULT: Record<LastLogin['outcome'], string> = {
  ok: 'reușită',
  rejected: 'refuzată de registru (utilizator sau parolă greșite)',
  network_error: 'registrul nu a răspuns (rețea)',
  registry_error: 'eroare a registrului',
  failed: 'eșuată',
};

/** The last registry login, whatever its outcome: the clerk sees at once whether the password was refused. */
export function LastLoginLine({ login }: { login: LastLogin | null }) {
  if (!login) return <>nicio autentificare încă</>;
  return (
    <>
      <span class={login.outcome === 'ok' ? 'ok' : 'bad'}>{LOGIN_RESULT[login.outcome]}</span>
      {login.httpStatus ? ` (HTTP ${login.httpStatus})` : ''}, la {showInstant(login.at)}
    </>
  );
}

/**
 * Registry credentials: set or not (never shown), replaced or removed. When a refused login
 * left errors, the form offers to requeue them in the same save, checked by default.
 */
export function Credentials({ overview, alerts, csrfToken, editable }: { overview: AccountOverview; alerts: AccountAlerts; csrfToken: string; editable: boolean }) {
  const refused = alerts.refusedAtLogin;
  return (
    <section id="creds" class="card">
      <h2>Credențialele registrului</h2>
      <p>
        {overview.hasCreds
          ? `Setate${overview.credsSetAt ? ` la ${showInstant(overview.credsSetAt)}` : ''}. Nu se afișează niciodată; le puteți înlocui sau șterge.`
          : `Nesetate: trimiterile așteaptă până le ${editable ? 'salvați' : 'salvează administratorul contului'}.`}
      </p>
      <p>
        Ultima autentificare la registru: <LastLoginLine login={overview.lastLoginAttempt} />
      </p>
      {editable ? null : <p class="muted">Le schimbă administratorul contului.</p>}
      {editable ? (
        <form method="post" action="/cont/creds" class="form" autocomplete="off">
          <fieldset>
            <legend>{overview.hasCreds ? 'Credențiale noi' : 'Credențialele registrului'}</legend>
            <div class="field">
              <label for="reg-user">Utilizator registru</label>
              <input id="reg-user" name="username" required maxlength={200} autocomplete="off" />
            </div>
            <div class="field">
              <label for="reg-pass">Parola registrului</label>
              <input id="reg-pass" name="password" type="password" required maxlength={500} autocomplete="new-password" />
            </div>
            {refused > 0 ? (
              <div class="field check">
                <input id="reg-requeue" type="checkbox" name="repune_refuzate" value="1" checked />
                <label for="reg-requeue">
                  Repune în coadă {refused === 1 ? 'trimiterea refuzată' : `cele ${countOf(refused, 'o trimitere refuzată', 'trimiteri refuzate')}`} la autentificare
                </label>
              </div>
            ) : null}
          </fieldset>
          <CsrfField token={csrfToken} />
          <button type="submit">{overview.hasCreds ? 'Înlocuiește credențialele' : 'Salvează credențialele'}</button>
        </form>
      ) : null}
      {editable && overview.hasCreds ? (
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
