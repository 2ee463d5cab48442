import type { ErrorCode } from '../../errors';
import { BareLayout } from '../layout';
import { Notice } from '../notice';

/** The sign-in form; after a failure it keeps the e-mail, never the password. */
export function LoginPage({ csrfToken, email, error, signup }: { csrfToken: string; email?: string; error?: { cod: ErrorCode; cauza?: string }; signup: boolean }) {
  return (
    <BareLayout title="Autentificare">
      <form method="post" action="/login" class="login" novalidate>
        <h1>Gateway prezentări</h1>
        <p>Intrați cu adresa de e-mail și parola dvs.</p>
        {error ? <Notice kind="error" cod={error.cod} cauza={error.cauza} /> : null}
        <input type="hidden" name="_csrf" value={csrfToken} />
        <label for="email">E-mail</label>
        <input id="email" name="email" type="email" autocomplete="username" required value={email ?? ''} autofocus={!email} maxlength={254} />
        <label for="parola">Parola</label>
        <input id="parola" name="parola" type="password" autocomplete="current-password" required autofocus={Boolean(email)} maxlength={256} />
        <button type="submit">Intră</button>
        <p class="after">
          <a href="/parola-uitata">Am uitat parola</a>
        </p>
        {signup ? (
          <p class="after">
            Service nou? <a href="/inregistrare">Înregistrați service-ul</a>
          </p>
        ) : null}
      </form>
    </BareLayout>
  );
}
