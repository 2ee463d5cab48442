import { isIsoDate } from '../../domain/dates';
import { canonicalOdometer } from '../../domain/canonical';
import { parseDateCell, parseOdometerCell } from '../../domain/import-cells';
import { odometerError } from '../../domain/validate';
import { CorrectionInput } from '../../domain/submission-input';
import type { SubmissionRecord } from '../../services/submissions/read';
import type { FormFields } from '../form';
import { fieldLabel, inClerkWords } from '../ui/field-labels';
import { showDate, showOdometer } from '../ui/format';

type Field = 'vin' | 'nrInm' | 'dataPrestatie' | 'odometruInitial' | 'odometruFinal';
const FIELDS: readonly Field[] = ['vin', 'nrInm', 'dataPrestatie', 'odometruInitial', 'odometruFinal'];

/** What the form shows: the record's fields, or what the clerk typed when it was refused. */
export type CorrectionValues = Record<Field, string>;
/** A message per field, shown under it. */
export type CorrectionErrors = Partial<Record<string, string>>;
export interface CorrectionState {
  values: CorrectionValues;
  errors: CorrectionErrors;
}

/** The record's fields as the screens show them (the date as dd.mm.yyyy), with its stored content errors at their fields. */
export function correctionOf(record: SubmissionRecord): CorrectionState {
  const errors: CorrectionErrors = {};
  for (const e of record.erori) errors[e.field] ??= inClerkWords(`${e.problema} ${e.cauza}`.trim());
  return {
    values: {
      vin: record.vin,
      nrInm: record.nrInm,
      dataPrestatie: showDate(record.dataPrestatie),
      odometruInitial: showOdometer(record.odometruInitial),
      odometruFinal: showOdometer(record.odometruFinal),
    },
    errors,
  };
}

const text = (v: FormFields[string] | undefined) => (typeof v === 'string' ? v : '');

/**
 * The posted form: the correction to store, or the typed values with a Romanian message at each
 * refused field (blank, too long, a date that does not exist or is not dd.mm.yyyy / ISO).
 */
export function readCorrection(fields: FormFields): { ok: true; input: CorrectionInput } | ({ ok: false } & CorrectionState) {
  const values = Object.fromEntries(FIELDS.map((f) => [f, text(fields[f])])) as CorrectionValues;
  const errors: CorrectionErrors = {};
  const parsed = CorrectionInput.safeParse(values);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = String(issue.path[0] ?? '');
      const label = fieldLabel(field);
      errors[field] ??= issue.code === 'too_big' ? `„${label}” este prea lung.` : `Completați „${label}”.`;
    }
  }
  const read = parseDateCell(values.dataPrestatie);
  const date = isIsoDate(read) ? read : null;
  if (values.dataPrestatie.trim() !== '' && date === null && !errors.dataPrestatie) {
    errors.dataPrestatie = 'Data nu există sau nu este scrisă ca zz.ll.aaaa (de exemplu 14.03.2025).';
  }
  // An odometer that is not whole kilometres is refused here, as typed, rather than stored held.
  for (const field of ['odometruInitial', 'odometruFinal'] as const) {
    if (values[field].trim() === '' || errors[field]) continue;
    const error = odometerError(canonicalOdometer(parseOdometerCell(values[field])), field);
    if (error) errors[field] = inClerkWords(`${error.problema} ${error.cauza}`);
  }
  if (!parsed.success || date === null || Object.keys(errors).length > 0) return { ok: false, values, errors };
  return { ok: true, input: { ...parsed.data, dataPrestatie: date } };
}

function Input({ name, state, hint, extra = {} }: { name: Field; state: CorrectionState; hint?: string; extra?: Record<string, unknown> }) {
  const id = `corectie-${name}`;
  const error = state.errors[name];
  const described = [hint ? `${id}-hint` : '', error ? `${id}-eroare` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{fieldLabel(name)}</label>
      <input
        id={id}
        name={name}
        value={state.values[name]}
        maxlength={name === 'dataPrestatie' || name.startsWith('odometru') ? 32 : 100}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described || undefined}
        {...extra}
      />
      {hint ? (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      {error ? (
        <p class="field-error" id={`${id}-eroare`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** The correction of a submission whose content is to blame: its fields, grouped, checked again on save. */
export function CorrectionForm({ id, state }: { id: number; state: CorrectionState }) {
  return (
    <section class="box">
      <h3>Corectați datele</h3>
      {/*
        settle:0: htmx otherwise copies the old inputs' style attributes onto the new ones (its CSS
        transitions), which the CSP refuses whenever something (an extension, an autofill) set one.
      */}
      <form hx-post={`/trimitere/${id}/corecteaza`} hx-target="#panou" hx-swap="innerHTML settle:0" class="form correct" novalidate>
        <fieldset>
          <legend>Vehiculul</legend>
          <div class="grid">
            <Input name="vin" state={state} hint="17 caractere, fără O, I și Q" extra={{ required: true, class: 'mono', autocapitalize: 'characters' }} />
            <Input name="nrInm" state={state} hint="fără spații, ex. B123ABC" extra={{ required: true, autocapitalize: 'characters' }} />
          </div>
        </fieldset>
        <fieldset>
          <legend>Prestația</legend>
          <div class="grid">
            <Input name="dataPrestatie" state={state} hint="zz.ll.aaaa, ex. 14.03.2025" extra={{ required: true, inputmode: 'numeric' }} />
            <Input name="odometruInitial" state={state} hint="doar dacă operația o cere" extra={{ inputmode: 'numeric' }} />
            <Input name="odometruFinal" state={state} extra={{ required: true, inputmode: 'numeric' }} />
          </div>
        </fieldset>
        <button type="submit">Salvează și verifică</button>
      </form>
    </section>
  );
}
