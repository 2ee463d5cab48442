import type { PendingInvitation } from '../../services/users/links';
import type { Person } from '../../services/users/people';
import { ROLE_NAMES, ROLES, type Role } from '../../services/roles';
import type { Actor } from '../../context';
import type { AccountAlerts } from '../../services/accounts/alerts';
import type { SessionUser } from '../../services/users/sessions';
import { Layout } from '../layout';
import { Notice, type NoticeProps } from '../notice';
import { showInstant } from '../ui/format';
import { CsrfField } from './csrf-field';
import { ContNav } from './nav';

/** A link to hand over by hand (no SMTP): shown in this answer only. */
export interface ShownLink {
  kind: 'invitatie' | 'resetare';
  email: string;
  address: string;
  expiresAt: Date;
}

const WHAT_ROLES_DO: Record<Role, string> = {
  administrator: 'invită și dezactivează colegi, schimbă credențialele registrului și setările contului, plus tot ce face un funcționar',
  functionar: 'importă fișiere, mapează coduri, corectează, repune în coadă și șterge trimiteri',
};

function RoleSelect({ id, value }: { id: string; value: Role }) {
  return (
    <select id={id} name="rol">
      {ROLES.map((r) => (
        <option value={r} selected={r === value}>
          {ROLE_NAMES[r]}
        </option>
      ))}
    </select>
  );
}

function LinkToCopy({ link }: { link: ShownLink }) {
  const invitation = link.kind === 'invitatie';
  return (
    <section id="link-nou" class="card" aria-labelledby="link-nou-titlu">
      <h2 id="link-nou-titlu">{invitation ? `Linkul de invitație pentru ${link.email}` : `Linkul de resetare a parolei pentru ${link.email}`}</h2>
      <p>
        Copiați linkul și trimiteți-l colegului (mesaj, WhatsApp). <strong>Se afișează acum o singură dată</strong>; se poate folosi o singură dată și expiră la{' '}
        {showInstant(link.expiresAt)}.
      </p>
      <label for="link-copiat">Linkul</label>
      <input id="link-copiat" class="mono copy" readonly value={link.address} autofocus />
    </section>
  );
}

/** Oameni: the account's people and invitations, for its administrator. */
export function PeoplePage({
  user,
  actor,
  csrfToken,
  alerts,
  people,
  invitations,
  byMail,
  notice,
  shown,
}: {
  user: SessionUser;
  actor: Actor;
  csrfToken: string;
  alerts?: AccountAlerts;
  people: Person[];
  invitations: PendingInvitation[];
  byMail: boolean;
  notice?: NoticeProps;
  shown?: ShownLink;
}) {
  return (
    <Layout title="Oameni" tab="cont" user={user} csrfToken={csrfToken} alerts={alerts}>
      <ContNav actor={actor} current="oameni" />
      <h1>Oamenii contului</h1>
      {notice ? <Notice {...notice} /> : null}
      {shown ? <LinkToCopy link={shown} /> : null}
      <section id="invita" class="card">
        <h2>Invitați un coleg</h2>
        <p class="muted">
          {byMail
            ? 'Colegul primește pe e-mail un link prin care își alege parola (valabil 72 de ore, o singură dată).'
            : 'Gateway-ul nu trimite e-mailuri: primiți aici un link pe care i-l dați colegului (valabil 72 de ore, o singură dată).'}
        </p>
        <form method="post" action="/cont/oameni/invita" class="form">
          <div class="grid">
            <div class="field">
              <label for="invita-email">E-mailul colegului</label>
              <input id="invita-email" name="email" type="email" required maxlength={254} autocomplete="off" />
            </div>
            <div class="field">
              <label for="invita-rol">Rolul</label>
              <RoleSelect id="invita-rol" value="functionar" />
            </div>
          </div>
          <ul class="muted small roles">
            {ROLES.map((r) => (
              <li>
                <strong>{ROLE_NAMES[r]}</strong>: {WHAT_ROLES_DO[r]}
              </li>
            ))}
          </ul>
          <CsrfField token={csrfToken} />
          <button type="submit">{byMail ? 'Trimite invitația' : 'Creează linkul de invitație'}</button>
        </form>
      </section>
      <section id="invitatii" class="card">
        <h2>Invitații în așteptare</h2>
        {invitations.length === 0 ? (
          <p class="muted">Nicio invitație în așteptare.</p>
        ) : (
          <table class="list people">
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Rol</th>
                <th scope="col">Expiră</th>
                <th scope="col">
                  <span class="sr-only">Acțiuni</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invitations.map((i) => (
                <tr>
                  <td>{i.email}</td>
                  <td>{ROLE_NAMES[i.role]}</td>
                  <td>{showInstant(i.expiresAt)}</td>
                  <td>
                    <form method="post" action={`/cont/oameni/invitatii/${i.id}/anuleaza`}>
                      <CsrfField token={csrfToken} />
                      <button type="submit" class="danger" aria-label={`Anulează invitația pentru ${i.email}`}>
                        Anulează
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section id="oameni" class="card">
        <h2>Colegii</h2>
        <table class="list people">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Rol</th>
              <th scope="col">Stare</th>
              <th scope="col">Ultima activitate</th>
              <th scope="col">
                <span class="sr-only">Acțiuni</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {people.map((p) => (
              <PersonRow person={p} self={p.id === user.userId} csrfToken={csrfToken} />
            ))}
          </tbody>
        </table>
      </section>
    </Layout>
  );
}

function PersonRow({ person: p, self, csrfToken }: { person: Person; self: boolean; csrfToken: string }) {
  const base = `/cont/oameni/${p.id}`;
  return (
    <tr class={p.disabledAt ? 'disabled' : undefined}>
      <td>
        {p.email}
        {self ? <span class="muted"> (dvs.)</span> : null}
      </td>
      <td>
        {self ? (
          ROLE_NAMES[p.role]
        ) : (
          <form method="post" action={`${base}/rol`} class="inline">
            <label class="sr-only" for={`rol-${p.id}`}>
              Rolul lui {p.email}
            </label>
            <RoleSelect id={`rol-${p.id}`} value={p.role} />
            <CsrfField token={csrfToken} />
            <button type="submit">Schimbă</button>
          </form>
        )}
      </td>
      <td>{p.disabledAt ? `dezactivat la ${showInstant(p.disabledAt)}` : 'activ'}</td>
      <td>{p.lastSeenAt ? showInstant(p.lastSeenAt) : 'nicio sesiune deschisă'}</td>
      <td>
        {self ? null : (
          <div class="row-actions">
            {p.disabledAt ? (
              <form method="post" action={`${base}/activeaza`}>
                <CsrfField token={csrfToken} />
                <button type="submit" aria-label={`Activează ${p.email}`}>
                  Activează
                </button>
              </form>
            ) : (
              <>
                <form method="post" action={`${base}/resetare`}>
                  <CsrfField token={csrfToken} />
                  <button type="submit" class="secondary" aria-label={`Link de resetare a parolei pentru ${p.email}`}>
                    Link de resetare
                  </button>
                </form>
                <form method="post" action={`${base}/dezactiveaza`}>
                  <CsrfField token={csrfToken} />
                  <button type="submit" class="danger" aria-label={`Dezactivează ${p.email}`}>
                    Dezactivează
                  </button>
                </form>
              </>
            )}
          </div>
        )}
      </td>
    </tr>
  );
}
