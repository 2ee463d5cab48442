/** The registry's codes as a select, with `selected` (a suggestion, or the saved code) preselected. */
export function CodeSelect({ nomenclator, selected, id, label }: { nomenclator: ReadonlyMap<string, string>; selected?: string | null; id: string; label: string }) {
  return (
    <select name="cod_prestatie" id={id} aria-label={label} required>
      <option value="" selected={!selected}>
        — alegeți codul registrului —
      </option>
      {[...nomenclator].map(([cod, denumire]) => (
        <option value={cod} selected={cod === selected}>
          {cod} · {denumire}
        </option>
      ))}
    </select>
  );
}
