import type { Suggestion } from '../../domain/suggest';
import type { MappingRecord, PendingOperation } from '../../services/operations/mappings';
import type { TextRuleRecord } from '../../services/operations/text-rules';
import { Notice } from '../notice';
import { CodeSelect } from '../ui/code-select';

export type EditorNotice = { kind: 'ok'; text: string } | { kind: 'error'; cod: 'CERERE_INVALIDA' | 'CONFLICT_STARE'; cauza: string };

const SUGGESTION_SOURCE: Record<Suggestion['sursa'], string> = { cod: 'codul este al registrului', exemplu: 'seamănă cu o mapare a dvs.', vocabular: 'după denumire' };

function PendingRow({ op, nomenclator, index }: { op: PendingOperation; nomenclator: ReadonlyMap<string, string>; index: number }) {
  return (
    <tr>
      <td class="mono">{op.codOpService}</td>
      <td>{op.denumire}</td>
      <td>{op.submissions}</td>
      <td>
        <form hx-post="/mapari" hx-target="#mapari" hx-swap="outerHTML" class="inline">
          <input type="hidden" name="cod_op_service" value={op.codOpService} />
          <CodeSelect nomenclator={nomenclator} selected={op.suggestion?.cod_prestatie} id={`cod-${index}`} label={`Codul registrului pentru ${op.codOpService}`} />
          <button type="submit">Salvează</button>
        </form>
        {op.suggestion ? <p class="muted small">Sugestie: {SUGGESTION_SOURCE[op.suggestion.sursa]}</p> : <p class="muted small">Fără sugestie: alegeți din listă.</p>}
      </td>
    </tr>
  );
}

/**
 * The mapping editor's fragment: the codes waiting for a mapping (with how many submissions
 * each holds and the preselected suggestion), saved one at a time or all suggested at once;
 * the saved mappings with delete; the text rules.
 */
export function MappingEditor(props: {
  pending: PendingOperation[];
  saved: MappingRecord[];
  rules: TextRuleRecord[];
  nomenclator: ReadonlyMap<string, string>;
  notice?: EditorNotice;
}) {
  const suggested = props.pending.filter((p) => p.suggestion);
  return (
    <section id="mapari">
      {props.notice ? <Notice {...props.notice} /> : null}
      <h2>Coduri de mapat</h2>
      {props.pending.length === 0 ? (
        <p class="empty">Nicio operație nu așteaptă o mapare.</p>
      ) : (
        <>
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Codul dvs.</th>
                <th scope="col">Denumirea trimisă</th>
                <th scope="col">Trimiteri blocate</th>
                <th scope="col">Codul registrului</th>
              </tr>
            </thead>
            <tbody>
              {props.pending.map((op, i) => (
                <PendingRow op={op} nomenclator={props.nomenclator} index={i} />
              ))}
            </tbody>
          </table>
          {suggested.length > 0 ? (
            <form hx-post="/mapari/sugestii" hx-target="#mapari" hx-swap="outerHTML" hx-confirm={`Salvați cele ${suggested.length} sugestii ca mapări?`} class="bulk">
              <button type="submit">Salvează toate sugestiile ({suggested.length})</button>
            </form>
          ) : null}
        </>
      )}
      <h2>Mapări salvate</h2>
      {props.saved.length === 0 ? (
        <p class="muted">Nicio mapare salvată.</p>
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Codul dvs.</th>
              <th scope="col">Codul registrului</th>
              <th scope="col">
                <span class="visually-hidden">Acțiuni</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.saved.map((m) => (
              <tr>
                <td class="mono">{m.codOpService}</td>
                <td>
                  <span class="mono">{m.codPrestatie}</span> {m.denumirePrestatie ?? ''}
                </td>
                <td>
                  <button
                    type="button"
                    class="danger"
                    hx-post={`/mapari/${encodeURIComponent(m.codOpService)}/sterge`}
                    hx-target="#mapari"
                    hx-swap="outerHTML"
                    hx-confirm={`Ștergeți maparea ${m.codOpService} → ${m.codPrestatie}? Trimiterile viitoare cu acest cod vor aștepta din nou o mapare.`}
                  >
                    Șterge
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Reguli de text</h2>
      {props.rules.length === 0 ? (
        <p class="muted">Nicio regulă de text. Regulile se adaugă prin API (POST /v1/reguli-text).</p>
      ) : (
        <table class="list">
          <thead>
            <tr>
              <th scope="col">Prioritate</th>
              <th scope="col">Textul căutat</th>
              <th scope="col">Codul registrului</th>
            </tr>
          </thead>
          <tbody>
            {props.rules.map((r) => (
              <tr>
                <td>{r.priority}</td>
                <td>{r.pattern}</td>
                <td class="mono">{r.codPrestatie}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
