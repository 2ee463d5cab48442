import { MAX_KEY_LENGTH } from '../../services/accounts/key-check';
import { Notice } from '../notice';

export type KeyVerdict =
  | { kind: 'own'; accountId: number; accountName: string }
  | { kind: 'other' }
  | { kind: 'other-named'; accountId: number; accountName: string }
  | { kind: 'invalid' }
  | { kind: 'refused'; cod: 'FORMULAR_INVALID' | 'PREA_MULTE_CERERI'; cauza: string };

/** The tester's answer: which account a key acts for; never the key itself. */
export function KeyResult({ verdict }: { verdict?: KeyVerdict }) {
  if (!verdict) return null;
  switch (verdict.kind) {
    case 'own':
      return <Notice kind="ok" text={`Cheia este validă pentru contul dvs.: contul ${verdict.accountId}, ${verdict.accountName}.`} />;
    case 'other-named':
      return <Notice kind="ok" text={`Cheia este validă, dar pentru alt cont: contul ${verdict.accountId}, ${verdict.accountName}.`} />;
    case 'other':
      return <Notice kind="ok" text="Cheia este validă, dar pentru alt cont decât al dvs. Folosiți o cheie a contului dvs." />;
    case 'invalid':
      return <Notice kind="error" cod="NEAUTENTIFICAT" cauza="Cheia nu există sau a fost revocată: API-ul ar răspunde 401." />;
    case 'refused':
      return <Notice kind="error" cod={verdict.cod} cauza={verdict.cauza} />;
  }
}

/** The form: the key in a password field (it is a secret on a shared screen), checked by htmx in place. */
export function KeyTester({ csrfToken, verdict }: { csrfToken: string; verdict?: KeyVerdict }) {
  return (
    <section class="card" aria-labelledby="test-cheie-titlu">
      <h2 id="test-cheie-titlu">Verifică o cheie API</h2>
      <form method="post" action="/integrare/test-cheie" class="key-test" hx-post="/integrare/test-cheie" hx-target="#cheie-rezultat" hx-swap="innerHTML">
        <input type="hidden" name="_csrf" value={csrfToken} />
        <label for="cheie">Cheia</label>
        <input id="cheie" name="cheie" type="password" autocomplete="off" spellcheck={false} maxlength={MAX_KEY_LENGTH} required />
        <button type="submit">Verifică</button>
      </form>
      <div id="cheie-rezultat" aria-live="polite">
        <KeyResult verdict={verdict} />
      </div>
      <p class="muted small">Cheia nu este afișată, salvată sau scrisă în jurnal; aflați doar dacă este validă și pentru ce cont.</p>
    </section>
  );
}
