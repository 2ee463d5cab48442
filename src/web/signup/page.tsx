import type { RequestErrorCode } from '../../errors';
import { BareLayout } from '../layout';
import { Field } from '../links/field';
import { Notice } from '../notice';

export interface SignUpValues {
  nume?: string;
  cui?: string;
  email?: string;
}

export interface SignUpRefusal {
  cod: RequestErrorCode;
  cauza?: string;
  /** The field the refusal is about, marked on the form. */
  field?: string;
}

/** A workshop joins: its name, its CUI, the first person's e-mail and password. The password is never sent back. */
export function SignUpPage({ csrfToken, values = {}, error }: { csrfToken: string; values?: SignUpValues; error?: SignUpRefusal }) {
  const on = (field: string) => (error?.field === field ? error.cauza : undefined);
  return (
    <BareLayout title="Înregistrare">
      <form method="post" action="/inregistrare" class="login form" novalidate>
        <h1>Înregistrați service-ul</h1>
        <p>Creați contul service-ului; deveniți administratorul lui și vă puteți invita apoi colegii.</p>
        {/* A refused field is named beside it; the notice above says to look there. */}
        {error ? error.field ? <Notice kind="error" cod="FORMULAR_INVALID" /> : <Notice kind="error" cod={error.cod} cauza={error.cauza} /> : null}
        <input type="hidden" name="_csrf" value={csrfToken} />
        <Field id="nume" name="nume" label="Numele service-ului" value={values.nume} autocomplete="organization" maxlength={200} required autofocus error={on('nume')} />
        <Field
          id="cui"
          name="cui"
          label="CUI (cod fiscal)"
          hint="Cu sau fără „RO”, de exemplu RO18547290."
          value={values.cui}
          autocomplete="off"
          maxlength={20}
          required
          error={on('cui')}
        />
        <Field id="email" name="email" type="email" label="E-mailul dvs." value={values.email} autocomplete="username" maxlength={254} required error={on('email')} />
        <Field id="parola" name="parola" type="password" label="Parola" hint="Cel puțin 12 caractere." autocomplete="new-password" maxlength={256} required error={on('parola')} />
        <button type="submit">Creează contul</button>
        <p class="after">
          Aveți deja cont? <a href="/login">Intrați</a>
        </p>
      </form>
    </BareLayout>
  );
}

/** Sign-up is closed on this gateway: who to ask instead. */
export function SignUpClosedPage() {
  return (
    <BareLayout title="Înregistrare închisă">
      <section class="login">
        <h1>Înregistrați service-ul</h1>
        <Notice kind="error" cod="INREGISTRARE_INCHISA" />
        <p class="after">
          <a href="/login">Înapoi la autentificare</a>
        </p>
      </section>
    </BareLayout>
  );
}
