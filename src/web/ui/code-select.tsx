import { isSerious, SERIOUS_WARNING } from '../../domain/serious-codes';
import { PRESELECT_AT, type Suggestion } from '../../domain/suggest';

const WHY: Record<Suggestion['sursa'], (s: Suggestion) => string> = {
  cod: () => 'denumirea este chiar un cod al registrului',
  exemplu: (s) => `seamănă cu maparea dvs. „${s.asemanator_cu ?? ''}”`,
  vocabular: () => 'după cuvintele din denumire',
};

/** How sure, in words and per cent: "probabil (72 %)". */
export function howSure(scor: number): string {
  const words = scor >= 0.8 ? 'foarte probabil' : scor >= PRESELECT_AT ? 'probabil' : 'nesigur';
  return `${words} (${Math.round(scor * 100)} %)`;
}

/** A suggestion as a guess: the code, why, how sure, and whether the clerk must choose. */
export function SuggestionNote({ suggestion }: { suggestion: Suggestion | null | undefined }) {
  if (!suggestion) return <p class="muted small">Fără sugestie: alegeți din listă.</p>;
  return (
    <p class="muted small suggestion">
      Sugestie: <span class="mono">{suggestion.cod_prestatie}</span> {suggestion.denumire}, {WHY[suggestion.sursa](suggestion)}; {howSure(suggestion.scor)}.
      {suggestion.grav ? <strong class="grav"> {SERIOUS_WARNING}.</strong> : null}
      {suggestion.preselect ? null : ' Nu este preselectată: alegeți dvs. codul.'}
    </p>
  );
}

/** The box a clerk ticks to confirm a serious code; shown (app.js) while one is selected. */
export function SeriousConfirm({ value, shown }: { value: string; shown: boolean }) {
  return (
    <label class="grav-confirm" hidden={!shown} data-grav-confirm>
      <input type="checkbox" name="confirm_grav" value={value} autocomplete="off" /> Confirm: codul ales are consecințe legale și nu se poate retrage din registru
    </label>
  );
}

/**
 * An id for what a list shows once per key (an operation's code): any text, as letters, digits
 * and `-`, each other character (`_` included) as `_hex_`, so two keys never share an id.
 */
export function keyedId(prefix: string, key: string): string {
  return `${prefix}-${[...key].map((ch) => (/[A-Za-z0-9-]/.test(ch) ? ch : `_${ch.codePointAt(0)!.toString(16)}_`)).join('')}`;
}

/**
 * The registry's codes as a select. It starts on `selected` (a saved code, a clerk's earlier
 * pick) or on the suggestion when the suggestion says it preselects (domain/suggest.ts), else on
 * "Alegeți codul…". Serious codes carry a warning and need their confirmation box ticked.
 * The browser does not restore its choice on a reload or Back (autocomplete off): the page then
 * shows what is stored, and a choice restored by position could land on another row.
 */
export function CodeSelect(props: {
  nomenclator: ReadonlyMap<string, string>;
  suggestion?: Suggestion | null;
  selected?: string | null;
  id: string;
  label: string;
  /** What the confirmation box sends: the operation's code, so a list of rows stays paired. */
  confirmValue: string;
  /** Also say what was suggested, why and how sure (SuggestionNote). */
  withNote?: boolean;
}) {
  const start = props.selected ?? (props.suggestion?.preselect ? props.suggestion.cod_prestatie : null);
  return (
    <>
      <select name="cod_prestatie" id={props.id} aria-label={props.label} required autocomplete="off" data-code-select>
        <option value="" selected={!start}>
          Alegeți codul…
        </option>
        {[...props.nomenclator].map(([cod, denumire]) => (
          <option value={cod} selected={cod === start} data-grav={isSerious(cod) ? '' : undefined}>
            {cod} · {denumire}
            {isSerious(cod) ? ` — ${SERIOUS_WARNING}` : ''}
          </option>
        ))}
      </select>
      <SeriousConfirm value={props.confirmValue} shown={!!start && isSerious(start)} />
      {props.withNote ? <SuggestionNote suggestion={props.suggestion} /> : null}
    </>
  );
}
