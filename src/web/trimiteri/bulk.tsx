import { BULK_CAP, type BulkPlan } from '../../services/submissions/bulk';
import { trimiteri } from '../ui/format';
import type { SubmissionsQuery } from './query';

const n = (count: number) => count.toLocaleString('ro-RO');

/** The list's filters as hidden fields: "all in this view" means these, whatever page is shown. */
function FilterFields({ q }: { q: SubmissionsQuery }) {
  return (
    <>
      <input type="hidden" name="vedere" value={q.vedere} />
      {q.de_la ? <input type="hidden" name="de_la" value={q.de_la} /> : null}
      {q.pana_la ? <input type="hidden" name="pana_la" value={q.pana_la} /> : null}
      {q.cauta ? <input type="hidden" name="cauta" value={q.cauta} /> : null}
      {q.cauza ? <input type="hidden" name="cauza" value={q.cauza} /> : null}
    </>
  );
}

/**
 * The bulk actions above the rows: the rows' checkboxes belong to this form (form="actiuni").
 * Its buttons only ask for the confirmation (the server counts what the selection matches now).
 * htmx only: the confirmation is a fragment of this page, so there is no plain-post fallback.
 */
export function BulkBar({ q, total, capped }: { q: SubmissionsQuery; total: number; capped: boolean }) {
  return (
    <form id="actiuni" class="list-actions" hx-post="/trimiteri/actiuni" hx-target="#confirmare">
      <FilterFields q={q} />
      <label class="all">
        <input type="checkbox" name="tot" value="1" /> Toate din această vedere ({capped ? 'peste ' : ''}
        {trimiteri(total)}), nu doar pagina
      </label>
      <span class="buttons">
        <button type="submit" name="actiune" value="repune">
          Repune în coadă…
        </button>
        <button type="submit" name="actiune" value="sterge" class="danger">
          Șterge…
        </button>
      </span>
      <span class="muted small">Cel mult {trimiteri(BULK_CAP)} odată; urmează o confirmare cu numărul exact.</span>
    </form>
  );
}

const QUESTION = { requeue: (k: number) => `Repuneți ${trimiteri(k)} în coadă?`, delete: (k: number) => `Ștergeți definitiv ${trimiteri(k)}?` };
const YES = { requeue: (k: number) => `Da, repuneți ${n(k)}`, delete: (k: number) => `Da, ștergeți ${n(k)}` };

/**
 * The confirmation, counted by the server: how many the action will change, what it leaves
 * alone and why. Its form carries the same selection and the fingerprint of the rows counted:
 * the action is refused if they are no longer the same.
 */
export function BulkConfirm({ plan, selection }: { plan: BulkPlan; selection: { q: SubmissionsQuery; all: boolean; ids: number[] } }) {
  const verb = plan.action === 'requeue' ? 'repune' : 'sterge';
  if (plan.overCap) {
    return (
      <div class="notice error" role="alert" tabindex={-1}>
        <strong>Prea multe trimiteri pentru o singură acțiune.</strong>
        <p>Filtrul cuprinde peste {trimiteri(BULK_CAP)}. Restrângeți-l (după dată, cauză sau căutare) și încercați din nou.</p>
      </div>
    );
  }
  return (
    <div class="box confirm" role="alertdialog" aria-labelledby="confirmare-titlu">
      <h2 id="confirmare-titlu" tabindex={-1}>
        {plan.ids.length === 0 ? 'Nicio trimitere aleasă nu permite această acțiune.' : QUESTION[plan.action](plan.ids.length)}
      </h2>
      {plan.skipped.length > 0 ? (
        <>
          <p>Rămân neatinse:</p>
          <ul>
            {plan.skipped.map((s) => (
              <li>
                {trimiteri(s.n)}: {s.reason}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <form hx-post="/trimiteri/actiuni/executa" hx-target="#confirmare" class="inline">
        <input type="hidden" name="actiune" value={verb} />
        <input type="hidden" name="amprenta" value={plan.fingerprint} />
        {selection.all ? (
          <>
            <input type="hidden" name="tot" value="1" />
            <FilterFields q={selection.q} />
          </>
        ) : (
          selection.ids.map((id) => <input type="hidden" name="id" value={String(id)} />)
        )}
        {plan.ids.length > 0 ? (
          <button type="submit" class={plan.action === 'delete' ? 'danger' : undefined}>
            {YES[plan.action](plan.ids.length)}
          </button>
        ) : null}
        <button type="button" class="secondary" data-close-confirm>
          Renunță
        </button>
      </form>
    </div>
  );
}

export function BulkDone({ action, done }: { action: 'requeue' | 'delete'; done: number }) {
  // The verb agrees with the count: "A fost ștearsă o trimitere", "Au fost șterse 3 trimiteri".
  const one = done === 1;
  const text =
    action === 'requeue' ? `${one ? 'A fost repusă' : 'Au fost repuse'} în coadă ${trimiteri(done)}.` : `${one ? 'A fost ștearsă' : 'Au fost șterse'} ${trimiteri(done)}.`;
  return (
    <div class="notice ok" role="status" tabindex={-1}>
      {text}{' '}
      <button type="button" class="linkish" data-close-confirm>
        Închide
      </button>
    </div>
  );
}
