import type { Program } from '../../clients/examples';

/**
 * A program as the page shows it, with its copy button: app.js copies the `<pre>`'s text, so
 * what lands on the clipboard is exactly what is on the screen. The block scrolls sideways in
 * itself; the page never does.
 */
export function CodeBlock({ id, title, program }: { id: string; title: string; program: Program }) {
  return (
    <figure class="code" aria-labelledby={`${id}-titlu`}>
      <figcaption class="code-bar">
        <span id={`${id}-titlu`}>
          <strong>{title}</strong>
          <span class="muted small">
            {' '}
            · <span class="mono">{program.filename}</span> · {program.howToRun}
          </span>
        </span>
        <button type="button" class="copy" data-copy={id} aria-describedby={`${id}-titlu`}>
          Copiază
        </button>
      </figcaption>
      <pre id={id} tabindex={0} data-example={id}>
        <code>{program.code}</code>
      </pre>
    </figure>
  );
}
