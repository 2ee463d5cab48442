import { isSerious, nameJustifies, SERIOUS_WARNING } from '../../domain/serious-codes';
import type { PendingOperation } from '../../services/operations/mappings';
import type { TextRuleRecord } from '../../services/operations/text-rules';
import { CodeSelect } from '../ui/code-select';
import { DeleteButton } from './delete-button';

/** A rule's fields; `id` names the form's inputs apart (a new rule, or rule n). */
function RuleFields({ rule, id, nomenclator }: { rule?: TextRuleRecord; id: string; nomenclator: ReadonlyMap<string, string> }) {
  return (
    <>
      <label for={`${id}-pattern`}>Textul căutat în denumire</label>
      <input id={`${id}-pattern`} name="pattern" value={rule?.pattern ?? ''} required minlength={2} maxlength={200} />
      <label for={`${id}-cod`}>Codul registrului</label>
      <CodeSelect nomenclator={nomenclator} selected={rule?.codPrestatie} confirmValue="regula" id={`${id}-cod`} label="Codul registrului pentru regulă" />
      <label for={`${id}-prioritate`}>Prioritate (mai mic = încercată întâi)</label>
      <input id={`${id}-prioritate`} name="priority" type="number" min={0} max={100000} value={String(rule?.priority ?? 100)} inputmode="numeric" />
    </>
  );
}

function RuleRow({ rule, nomenclator }: { rule: TextRuleRecord; nomenclator: ReadonlyMap<string, string> }) {
  const path = `/mapari/reguli/${rule.id}`;
  return (
    <tr>
      <td data-label="Prioritate">{rule.priority}</td>
      <td data-label="Textul căutat">{rule.pattern}</td>
      <td data-label="Codul registrului">
        <span class="mono">{rule.codPrestatie}</span>
        {isSerious(rule.codPrestatie) ? <strong class="grav"> {SERIOUS_WARNING}</strong> : null}
      </td>
      <td data-label="Acțiuni">
        <details class="edit">
          <summary>Modifică</summary>
          <form hx-post={`${path}/modifica`} hx-target="#mapari" hx-swap="outerHTML" hx-disable="findAll button" class="stack">
            <RuleFields rule={rule} id={`regula-${rule.id}`} nomenclator={nomenclator} />
            <button type="submit">Salvează regula</button>
          </form>
        </details>
        <DeleteButton path={path} confirm="Ștergeți regula de text? Trimiterile viitoare nu o mai folosesc." />
      </td>
    </tr>
  );
}

/** The account's text rules, editable, and a form to add one, testable against the pending names first. */
export function TextRules({ rules, nomenclator }: { rules: TextRuleRecord[]; nomenclator: ReadonlyMap<string, string> }) {
  return (
    <>
      {rules.length === 0 ? (
        <p class="muted">Nicio regulă de text.</p>
      ) : (
        <table class="list stacked" id="reguli">
          <thead>
            <tr>
              <th scope="col">Prioritate</th>
              <th scope="col">Textul căutat</th>
              <th scope="col">Codul registrului</th>
              <th scope="col">Acțiuni</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <RuleRow rule={r} nomenclator={nomenclator} />
            ))}
          </tbody>
        </table>
      )}
      <h3>Regulă nouă</h3>
      <p class="muted small">O operație fără mapare al cărei nume conține textul primește codul ales. Testați întâi: vedeți ce operații în așteptare ar prinde.</p>
      <form hx-post="/mapari/reguli" hx-target="#mapari" hx-swap="outerHTML" hx-disable="findAll button" class="stack" id="regula-noua">
        <RuleFields id="regula-noua" nomenclator={nomenclator} />
        <div class="actions">
          <button type="button" class="secondary" hx-post="/mapari/reguli/test" hx-include="closest form" hx-target="#regula-test" hx-swap="innerHTML" hx-disable="this">
            Testează
          </button>
          <button type="submit">Adaugă regula</button>
        </div>
      </form>
      <div id="regula-test" aria-live="polite" />
    </>
  );
}

/** What a rule would do now: the pending operations whose name contains its text, and the code they would get. */
export function RuleTest({ pattern, code, matches }: { pattern: string; code: string | null; matches: PendingOperation[] }) {
  if (matches.length === 0) return <p class="notice ok">Nicio operație în așteptare nu conține „{pattern}”.</p>;
  return (
    <div class="box rule-test">
      <p>
        „{pattern}” ar prinde {matches.length === 1 ? 'o operație în așteptare' : `${matches.length} operații în așteptare`}
        {code ? (
          <>
            , cu codul <span class="mono">{code}</span>
            {isSerious(code) ? <strong class="grav"> {SERIOUS_WARNING}</strong> : null}
          </>
        ) : null}
        :
      </p>
      <ul class="plain">
        {matches.map((op) => (
          <li>
            <span class="mono">{op.codOpService}</span> {op.denumire} · {op.submissions === 1 ? 'o trimitere' : `${op.submissions} trimiteri`}
            {code && !nameJustifies(code, op.denumire) ? <strong class="grav"> — denumirea nu vorbește de ce afirmă codul {code}</strong> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
