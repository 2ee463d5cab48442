import type { PendingOperation } from '../../services/operations/mappings';
import { CodeSelect } from '../ui/code-select';

/** A code waiting for a mapping: its own form saves this row; save-all reads every row's fields. */
function PendingRow({ op, nomenclator, index, chosen }: { op: PendingOperation; nomenclator: ReadonlyMap<string, string>; index: number; chosen?: string }) {
  return (
    <tr>
      <td data-label="Codul dvs." class="mono">
        {op.codOpService}
      </td>
      <td data-label="Denumirea trimisă">{op.denumire}</td>
      <td data-label="Trimiteri blocate">{op.submissions}</td>
      <td data-label="Codul registrului">
        <form hx-post="/mapari" hx-target="#mapari" hx-swap="outerHTML" hx-disable="findAll button" class="inline">
          <input type="hidden" name="cod_op_service" value={op.codOpService} />
          <CodeSelect
            nomenclator={nomenclator}
            suggestion={op.suggestion}
            selected={chosen}
            confirmValue={op.codOpService}
            withNote
            id={`cod-${index}`}
            label={`Codul registrului pentru ${op.codOpService}`}
          />
          <button type="submit">Salvează</button>
        </form>
      </td>
    </tr>
  );
}

/**
 * The codes waiting for a mapping. "Salvează toate" posts every row's current choice, as the page
 * shows it (hx-include of the table), to a confirmation step; rows left on "Alegeți codul…" are
 * left out there. `chosen` keeps a clerk's picks when the list is shown again after a refusal.
 */
export function PendingList({ pending, nomenclator, chosen }: { pending: PendingOperation[]; nomenclator: ReadonlyMap<string, string>; chosen?: ReadonlyMap<string, string> }) {
  if (pending.length === 0) return <p class="empty">Nicio operație nu așteaptă o mapare.</p>;
  return (
    <>
      <table class="list stacked" id="pendinte">
        <thead>
          <tr>
            <th scope="col">Codul dvs.</th>
            <th scope="col">Denumirea trimisă</th>
            <th scope="col">Trimiteri blocate</th>
            <th scope="col">Codul registrului</th>
          </tr>
        </thead>
        <tbody>
          {pending.map((op, i) => (
            <PendingRow op={op} nomenclator={nomenclator} index={i} chosen={chosen?.get(op.codOpService)} />
          ))}
        </tbody>
      </table>
      <form hx-post="/mapari/sugestii" hx-include="#pendinte" hx-target="#mapari" hx-swap="outerHTML" hx-disable="findAll button" class="bulk">
        <button type="submit">Salvează toate codurile alese…</button>
        <p class="muted small">Vedeți lista perechilor înainte de salvare; rândurile fără cod ales nu se salvează.</p>
      </form>
    </>
  );
}
