import { REGISTRY_TOKEN_HOURS } from '../../domain/registry-token';
import type { AccountAlerts } from '../../services/accounts/alerts';
import type { AccountOverview } from '../../services/accounts/overview';
import type { Actor } from '../../context';
import { may } from '../../services/roles';
import type { SessionUser } from '../../services/users/sessions';
import { Layout } from '../layout';
import { Notice } from '../notice';
import { showInstant } from '../ui/format';
import { Credentials } from './creds-form';
import { ContNav } from './nav';
import { UnmappedDefault } from './unmapped-form';

export type ContNotice = { kind: 'ok'; text: string } | { kind: 'error'; cod: 'FORMULAR_INVALID'; cauza: string };

/** Cont: keys (prefixes only), registry credentials (set or not, never shown), defaults, the registry session. */
export function ContPage({
  user,
  actor,
  csrfToken,
  overview,
  alerts,
  notice,
}: {
  user: SessionUser;
  actor: Actor;
  csrfToken: string;
  overview: AccountOverview;
  alerts: AccountAlerts;
  notice?: ContNotice;
}) {
  return (
    <Layout title="Cont" tab="cont" user={user} csrfToken={csrfToken} alerts={alerts}>
      <ContNav actor={actor} current="cont" />
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
      <Credentials overview={overview} alerts={alerts} csrfToken={csrfToken} editable={may(actor, 'credentials')} />
      <section class="card">
        <h2>Registrul</h2>
        <dl class="fields">
          <dt>Sesiunea la registru</dt>
          <dd>
            {overview.registrySessionLive
              ? `activă (ultima autentificare la ${showInstant(overview.lastRegistryLogin)}, valabilă ${REGISTRY_TOKEN_HOURS} de ore)`
              : overview.lastRegistryLogin
                ? `inactivă (ultima autentificare reușită la ${showInstant(overview.lastRegistryLogin)}); se reînnoiește la următoarea trimitere`
                : 'nicio autentificare încă'}
          </dd>
        </dl>
      </section>
      <UnmappedDefault reject={overview.rejectUnmappedByDefault} csrfToken={csrfToken} editable={may(actor, 'settings')} />
    </Layout>
  );
}
