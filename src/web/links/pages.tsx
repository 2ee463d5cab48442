import type { RequestErrorCode } from '../../errors';
import { ROLE_NAMES } from '../../services/roles';
import type { OpenLink } from '../../services/users/links';
import { BareLayout } from '../layout';
import { Notice } from '../notice';
import { Field } from './field';
import type { FormRefusal } from './refusal';

const BackToLogin = () => (
  <p class="after">
    <a href="/login">Înapoi la autentificare</a>
  </p>
);

/**
 * "Am uitat parola": with e-mail, a form whose answer (`sent`) is the same words whether or not
 * the address is known; without, who issues the link instead.
 */
export function ForgotPage({ csrfToken, byMail, sent, email, error }: { csrfToken: string; byMail: boolean; sent?: boolean; email?: string; error?: FormRefusal }) {
  if (!byMail) {
    return (
      <BareLayout title="Am uitat parola">
        <section class="login">
          <h1>Am uitat parola</h1>
          <p>
            Acest gateway nu trimite e-mailuri. Cereți administratorului contului service-ului un link de resetare a parolei: îl creează în <strong>Cont → Oameni</strong> și vi-l
            dă. Linkul este valabil 30 de minute și se folosește o singură dată.
          </p>
          <BackToLogin />
        </section>
      </BareLayout>
    );
  }
  return (
    <BareLayout title="Am uitat parola">
      <form method="post" action="/parola-uitata" class="login form" novalidate>
        <h1>Am uitat parola</h1>
        {sent ? (
          <Notice kind="ok" text="Dacă adresa aparține unui utilizator activ, i-am trimis un e-mail cu un link de resetare, valabil 30 de minute. Verificați și dosarul de spam." />
        ) : (
          <p>Scrieți adresa cu care intrați; vă trimitem un link prin care alegeți o parolă nouă.</p>
        )}
        {error ? <Notice kind="error" cod={error.cod} cauza={error.cauza} /> : null}
        <input type="hidden" name="_csrf" value={csrfToken} />
        <Field id="email" name="email" type="email" label="E-mail" value={email} autocomplete="username" maxlength={254} required autofocus={!sent} />
        <button type="submit">{sent ? 'Trimite din nou' : 'Trimite linkul'}</button>
        <BackToLogin />
      </form>
    </BareLayout>
  );
}

/** A live link's page: whose it is and the password to choose (twice, so a typo does not lock the person out). */
export function ChoosePasswordPage({ csrfToken, token, link, error }: { csrfToken: string; token: string; link: OpenLink; error?: FormRefusal }) {
  const invitation = link.kind === 'invitatie';
  const action = invitation ? '/invitatie' : '/parola-noua';
  const on = (field: string) => (error?.field === field ? error.cauza : undefined);
  return (
    <BareLayout title={invitation ? 'Invitație' : 'Parolă nouă'}>
      <form method="post" action={action} class="login form" novalidate>
        <h1>{invitation ? `Bun venit în contul ${link.accountName}` : 'Alegeți o parolă nouă'}</h1>
        <p>
          {invitation
            ? `Ați fost invitat(ă) ca ${link.role ? ROLE_NAMES[link.role] : 'funcționar'}. Alegeți parola cu care veți intra.`
            : 'După schimbare, celelalte sesiuni deschise cu această adresă se închid.'}
        </p>
        {error ? error.field ? <Notice kind="error" cod="FORMULAR_INVALID" /> : <Notice kind="error" cod={error.cod} cauza={error.cauza} /> : null}
        <input type="hidden" name="_csrf" value={csrfToken} />
        <input type="hidden" name="t" value={token} />
        <div class="field">
          <label for="cont-email">E-mail</label>
          <input id="cont-email" name="username" type="email" value={link.email} autocomplete="username" readonly />
        </div>
        <Field
          id="parola"
          name="parola"
          type="password"
          label="Parola nouă"
          hint="Cel puțin 12 caractere."
          autocomplete="new-password"
          maxlength={256}
          required
          autofocus
          error={on('parola')}
        />
        <Field id="parola2" name="parola2" type="password" label="Parola, încă o dată" autocomplete="new-password" maxlength={256} required error={on('parola2')} />
        <button type="submit">{invitation ? 'Creează contul meu' : 'Schimbă parola'}</button>
      </form>
    </BareLayout>
  );
}

/** A link that cannot be used (spent, cancelled, expired, or never ours): what to do instead. */
export function LinkRefusedPage({ cod, cauza }: { cod: RequestErrorCode; cauza?: string }) {
  return (
    <BareLayout title="Link nevalabil">
      <section class="login">
        <h1>Linkul nu poate fi folosit</h1>
        <Notice kind="error" cod={cod} cauza={cauza} />
        <p class="after">
          <a href="/parola-uitata">Am uitat parola</a>
        </p>
        <BackToLogin />
      </section>
    </BareLayout>
  );
}
