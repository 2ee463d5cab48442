import { isSerious, SERIOUS_WARNING } from '../../domain/serious-codes';
import { Notice } from '../notice';
import { SeriousConfirm } from '../ui/code-select';
import type { EditorNotice } from './editor';

/** One pair as the confirmation shows it: what the clerk posted, against the account as it is now. */
export interface ConfirmPair {
  codOpService: string;
  codPrestatie: string;
  denumire: string;
  /** Held submissions with the code now; null when it no longer waits (mapped meanwhile). */
  submissions: number | null;
  /** The count the clerk was shown at the first step (null at the first step itself). */
  shown: number | null;
}

const held = (n: number) => (n === 1 ? 'o trimitere blocată' : `${n} trimiteri blocate`);

function PairLine({ pair }: { pair: ConfirmPair }) {
  const serious = isSerious(pair.codPrestatie);
  if (pair.submissions === null) {
    return (
      <li class="stale">
        <span class="mono">{pair.codOpService}</span> → <span class="mono">{pair.codPrestatie}</span>: a fost mapat între timp; nu se salvează.
      </li>
    );
  }
  const changed = pair.shown !== null && pair.shown !== pair.submissions;
  return (
    <li class={serious ? 'grav' : undefined}>
      <input type="hidden" name="cod_op_service" value={pair.codOpService} />
      <input type="hidden" name="cod_prestatie" value={pair.codPrestatie} />
      <input type="hidden" name="numar" value={String(pair.submissions)} />
      <span class="mono">{pair.codOpService}</span> → <span class="mono">{pair.codPrestatie}</span> {pair.denumire} · {held(pair.submissions)}
      {changed ? <strong class="stale"> (erau {pair.shown}: numărul s-a schimbat)</strong> : null}
      {serious ? (
        <>
          {' '}
          <strong class="grav">{SERIOUS_WARNING}</strong>
          <SeriousConfirm value={pair.codOpService} shown />
        </>
      ) : null}
    </li>
  );
}

/**
 * The confirmation step of save-all: every pair exactly as the page posted it, with how many
 * held submissions each will send. Confirming posts the same pairs with the counts shown; the
 * server saves them only if nothing changed since (else this step is shown again, marked).
 */
export function SaveAllConfirmation({ pairs, notice }: { pairs: ConfirmPair[]; notice?: EditorNotice }) {
  const live = pairs.filter((p) => p.submissions !== null);
  const total = live.reduce((n, p) => n + (p.submissions ?? 0), 0);
  return (
    <section id="mapari">
      {notice ? <Notice {...notice} /> : null}
      <h2>Confirmați mapările</h2>
      {live.length === 0 ? (
        <p class="empty">Niciun cod ales de salvat.</p>
      ) : (
        <p>
          Se salvează {live.length === 1 ? 'o mapare' : `${live.length} mapări`}; trimiterile blocate doar de aceste coduri ({held(total)} în total) pleacă spre registru și nu se
          mai pot retrage.
        </p>
      )}
      <form hx-post="/mapari/sugestii" hx-target="#mapari" hx-swap="outerHTML" hx-disable="findAll button" class="confirm">
        <input type="hidden" name="confirmat" value="1" />
        <ul class="pairs">
          {pairs.map((p) => (
            <PairLine pair={p} />
          ))}
        </ul>
        <div class="actions">
          {live.length > 0 ? <button type="submit">Confirm și salvez {live.length === 1 ? 'maparea' : `cele ${live.length} mapări`}</button> : null}
          <button type="button" class="secondary" hx-get="/_fragments/mapari" hx-target="#mapari" hx-swap="outerHTML">
            Înapoi la listă
          </button>
        </div>
      </form>
    </section>
  );
}
