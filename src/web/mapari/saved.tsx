import { isSerious, SERIOUS_WARNING } from '../../domain/serious-codes';
import type { MappingChange } from '../../services/operations/mapping-history';
import type { MappingRecord } from '../../services/operations/mappings';
import { actorText } from '../ui/actor-text';
import { CodeSelect } from '../ui/code-select';
import { showInstant } from '../ui/format';
import { DeleteButton } from './delete-button';

const VERB: Record<MappingChange['event'], string> = { mapare_salvata: 'salvată', mapare_modificata: 'modificată', mapare_stearsa: 'ștearsă' };

function History({ changes }: { changes: MappingChange[] }) {
  return (
    <details class="history">
      <summary>Istoric ({changes.length})</summary>
      {changes.length === 0 ? (
        <p class="muted small">Nicio schimbare în jurnal.</p>
      ) : (
        <ol class="plain small">
          {changes.map((h) => (
            <li>
              {showInstant(h.at)} · {VERB[h.event]}{' '}
              <span class="mono">
                {h.from ? `${h.from} → ` : ''}
                {h.to ?? ''}
              </span>
              {h.by ? ` · ${actorText(h.by, h.event)}` : ''}
            </li>
          ))}
        </ol>
      )}
    </details>
  );
}

function SavedRow({ m, index, nomenclator, history }: { m: MappingRecord; index: number; nomenclator: ReadonlyMap<string, string>; history: MappingChange[] }) {
  const path = `/mapari/${encodeURIComponent(m.codOpService)}`;
  return (
    <tr>
      <td data-label="Codul dvs." class="mono">
        {m.codOpService}
      </td>
      <td data-label="Codul registrului">
        <span class="mono">{m.codPrestatie}</span> {m.denumirePrestatie ?? ''}
        {isSerious(m.codPrestatie) ? <strong class="grav"> {SERIOUS_WARNING}</strong> : null}
        <History changes={history} />
      </td>
      <td data-label="Acțiuni">
        <details class="edit">
          <summary>Modifică</summary>
          <form hx-post={`${path}/modifica`} hx-target="#mapari" hx-swap="outerHTML" hx-disable="findAll button" class="inline">
            <CodeSelect nomenclator={nomenclator} selected={m.codPrestatie} confirmValue={m.codOpService} id={`salvat-${index}`} label={`Codul nou pentru ${m.codOpService}`} />
            <button type="submit">Salvează modificarea</button>
            <p class="muted small">Se reclasifică doar trimiterile care așteaptă; ce s-a trimis rămâne cum a fost trimis.</p>
          </form>
        </details>
        <DeleteButton path={path} confirm={`Ștergeți maparea ${m.codOpService} → ${m.codPrestatie}? Trimiterile viitoare cu acest cod vor aștepta din nou o mapare.`} />
      </td>
    </tr>
  );
}

/** The account's mappings: each can be pointed at another code or deleted, with its history from the journal. */
export function SavedMappings({
  saved,
  nomenclator,
  history,
}: {
  saved: MappingRecord[];
  nomenclator: ReadonlyMap<string, string>;
  history: ReadonlyMap<string, MappingChange[]>;
}) {
  if (saved.length === 0) return <p class="muted">Nicio mapare salvată.</p>;
  return (
    <table class="list stacked" id="salvate">
      <thead>
        <tr>
          <th scope="col">Codul dvs.</th>
          <th scope="col">Codul registrului</th>
          <th scope="col">Acțiuni</th>
        </tr>
      </thead>
      <tbody>
        {saved.map((m, i) => (
          <SavedRow m={m} index={i} nomenclator={nomenclator} history={history.get(m.codOpService) ?? []} />
        ))}
      </tbody>
    </table>
  );
}
