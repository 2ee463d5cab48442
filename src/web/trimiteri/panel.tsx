import type { CostRefusal } from '../../http/cost-budget';
import type { ResolvedItem } from '../../domain/resolve';
import { errorCauseLabel } from '../../domain/error-causes';
import { allows, allowsCorrection } from '../../domain/statuses';
import type { AttemptRecord, SubmissionRecord } from '../../services/submissions/read';
import type { PendingOperation } from '../../services/operations/mappings';
import { Notice } from '../notice';
import { CodeSelect } from '../ui/code-select';
import { fieldLabel, inClerkWords } from '../ui/field-labels';
import { showDate, showInstant, showOdometer } from '../ui/format';
import { StatusChip } from '../ui/status-chip';
import { Attempts } from './attempts';
import { CorrectionForm, correctionOf, type CorrectionState } from './correction';
import { VinLink } from '../vehicul/page';

const SOURCE_LABEL: Record<ResolvedItem['sursa'], string> = { nomenclator: 'cod al registrului', mapare: 'mapare', regula_text: 'regulă de text' };

/** A registry error in plain words: what happened, why, and what to do. */
function RegistryError({ record }: { record: SubmissionRecord }) {
  const e = record.regError;
  if (!e) return null;
  return (
    <section class="box error">
      <h3>Răspunsul registrului: {errorCauseLabel(e.cod)}</h3>
      <p>
        <strong>{inClerkWords(e.problema)}</strong>
      </p>
      {e.cauza ? <p>{inClerkWords(e.cauza)}</p> : null}
      <p class="fix">Ce faceți: {inClerkWords(e.fix)}</p>
    </section>
  );
}

function ContentErrors({ record }: { record: SubmissionRecord }) {
  if (record.erori.length === 0) return null;
  return (
    <section class="box error">
      <h3>Date de corectat</h3>
      <ul>
        {record.erori.map((e) => (
          <li>
            <strong>{fieldLabel(e.field)}:</strong> {inClerkWords(e.problema)} {inClerkWords(e.cauza)}
            <br />
            <span class="fix">Ce faceți: {inClerkWords(e.fix)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** An action behind a confirmation (htmx's hx-confirm), answered by this panel again. */
function Action({ id, verb, label, confirm }: { id: number; verb: 'sterge' | 'repune'; label: string; confirm: string }) {
  return (
    <button type="button" hx-post={`/trimitere/${id}/${verb}`} hx-target="#panou" hx-confirm={confirm} class={verb === 'sterge' ? 'danger' : undefined}>
      {label}
    </button>
  );
}

/** Inline mapping of each code this submission waits for (the suggestion preselected only when sure: domain/suggest.ts). */
function MapCodes({ id, codes, nomenclator }: { id: number; codes: PendingOperation[]; nomenclator: ReadonlyMap<string, string> }) {
  if (codes.length === 0) return null;
  return (
    <section class="box">
      <h3>Mapați codurile</h3>
      {codes.map((op, i) => (
        <form hx-post={`/trimitere/${id}/mapeaza`} hx-target="#panou" class="inline map">
          <input type="hidden" name="cod_op_service" value={op.codOpService} />
          <label for={`panou-cod-${i}`}>
            <span class="mono">{op.codOpService}</span> {op.denumire}
          </label>
          <CodeSelect
            nomenclator={nomenclator}
            suggestion={op.suggestion}
            confirmValue={op.codOpService}
            withNote
            id={`panou-cod-${i}`}
            label={`Codul registrului pentru ${op.codOpService}`}
          />
          <button type="submit">Salvează maparea</button>
        </form>
      ))}
      <p class="muted small">Maparea se păstrează pentru cont: repune în coadă toate trimiterile care așteptau același cod.</p>
    </section>
  );
}

/** A confirmation, or a refusal (answered at its code's status); `saved`: the change was stored, and what it shows is still to do (200). */
export type PanelNotice = { kind: 'ok'; text: string } | { kind: 'error'; cod: 'CONFLICT_STARE' | 'FORMULAR_INVALID' | CostRefusal['cod']; cauza: string; saved?: true };

/** The detail panel: only allow-listed fields (never the payload, image or credentials). */
export function SubmissionPanel({
  record,
  attempts,
  notice,
  mapping,
  correction,
}: {
  record: SubmissionRecord;
  attempts: AttemptRecord[];
  notice?: PanelNotice;
  /** What the clerk typed in a refused correction, shown again with the errors at their fields. */
  correction?: CorrectionState;
  mapping?: { codes: PendingOperation[]; nomenclator: ReadonlyMap<string, string> };
}) {
  return (
    <div class="panel" role="dialog" aria-labelledby="panou-titlu" data-open>
      <header>
        <h2 id="panou-titlu">Trimiterea #{record.id}</h2>
        <button type="button" class="close" data-close-panel aria-label="Închide detaliile">
          ×
        </button>
      </header>
      {notice ? notice.kind === 'ok' ? <Notice {...notice} /> : <Notice kind="error" cod={notice.cod} cauza={notice.cauza} /> : null}
      <dl class="fields">
        <dt>Stare</dt>
        <dd>
          <StatusChip status={record.status} />
        </dd>
        {record.motiv ? (
          <>
            <dt>Motiv</dt>
            <dd>{inClerkWords(record.motiv)}</dd>
          </>
        ) : null}
        <dt>{fieldLabel('nrInm')}</dt>
        <dd>{record.nrInm}</dd>
        <dt>{fieldLabel('vin')}</dt>
        <dd>
          <VinLink vin={record.vin} />
        </dd>
        <dt>{fieldLabel('dataPrestatie')}</dt>
        <dd>{showDate(record.dataPrestatie)}</dd>
        <dt>Odometru</dt>
        <dd>
          {record.odometruInitial ? `${showOdometer(record.odometruInitial)} → ${showOdometer(record.odometruFinal) || '—'} km` : `${showOdometer(record.odometruFinal) || '—'} km`}
        </dd>
        <dt>Operații</dt>
        <dd>
          {record.prestatii.length === 0 ? (
            '—'
          ) : (
            <ul class="plain">
              {record.prestatii.map((p) => (
                <li>
                  <span class="mono">{p.cod_prestatie}</span> {p.denumire}{' '}
                  <span class="muted">
                    (din {p.cod_client}, {SOURCE_LABEL[p.sursa]})
                  </span>
                </li>
              ))}
            </ul>
          )}
          {record.nemapate.length > 0 ? <p>Coduri fără mapare: {record.nemapate.join(', ')}</p> : null}
        </dd>
        {record.batchId !== null ? (
          <>
            <dt>Import</dt>
            <dd>
              lotul {record.batchId}, rândul {record.rowIndex}
            </dd>
          </>
        ) : null}
        <dt>Primită</dt>
        <dd>{showInstant(record.createdAt)}</dd>
        <dt>Trimisă</dt>
        <dd>{record.sentAt ? `${showInstant(record.sentAt)} (nr. registru ${record.registryId ?? '—'})` : '—'}</dd>
      </dl>
      {mapping ? <MapCodes id={record.id} {...mapping} /> : null}
      {/* Why it failed before how to fix it: the registry's answer leads the correction form. */}
      <RegistryError record={record} />
      <ContentErrors record={record} />
      {allowsCorrection({ status: record.status, regErrorCod: record.regError?.cod ?? null }) ? <CorrectionForm id={record.id} state={correction ?? correctionOf(record)} /> : null}
      <h3>Încercări de trimitere</h3>
      <Attempts attempts={attempts} />
      <div class="actions">
        {allows(record.status, 'requeue') ? <Action id={record.id} verb="repune" label="Repune în coadă" confirm={`Repuneți în coadă trimiterea #${record.id}?`} /> : null}
        {allows(record.status, 'delete') ? (
          <Action id={record.id} verb="sterge" label="Șterge" confirm={`Ștergeți definitiv trimiterea #${record.id}? Nu se mai poate recupera.`} />
        ) : null}
      </div>
    </div>
  );
}

/** What the panel shows after a delete: the submission is gone. */
export function DeletedPanel({ id }: { id: number }) {
  return (
    <div class="panel" data-open>
      <header>
        <h2>Trimiterea #{id}</h2>
        <button type="button" class="close" data-close-panel aria-label="Închide">
          ×
        </button>
      </header>
      <Notice kind="ok" text={`Trimiterea #${id} a fost ștearsă.`} />
    </div>
  );
}
