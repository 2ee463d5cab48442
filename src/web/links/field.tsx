/** A labelled input of a form before sign-in, with its hint and, when it was the one refused, its error. */
export function Field({
  id,
  label,
  hint,
  error,
  ...input
}: {
  id: string;
  label: string;
  hint?: string;
  error?: string;
  name: string;
  type?: string;
  value?: string;
  autocomplete: string;
  maxlength: number;
  required?: boolean;
  autofocus?: boolean;
  minlength?: number;
}) {
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-eroare` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-invalid={error ? 'true' : undefined} aria-describedby={describedBy} {...input} />
      {hint ? (
        <span id={`${id}-hint`} class="hint">
          {hint}
        </span>
      ) : null}
      {error ? (
        <p id={`${id}-eroare`} class="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
