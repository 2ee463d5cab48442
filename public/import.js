// The import screen's behaviour (web/import), as listeners: the CSP allows no inline script.
(() => {
  // ---- The import screen (web/import) ---------------------------------------------------
  const uploadForm = () => document.getElementById('incarcare');
  /** A file chosen or dropped is sent at once: choosing is the clerk's decision to import it. */
  function sendUpload(files) {
    const form = uploadForm();
    const input = document.getElementById('fisier');
    if (!form || !input) return;
    if (files) input.files = files;
    if (input.files.length > 0) form.requestSubmit();
  }
  document.addEventListener('change', (event) => {
    const el = event.target;
    if (!(el instanceof Element)) return;
    if (el.id === 'fisier') sendUpload();
    // A column's field changed: the mapping is saved and the samples and preview re-rendered.
    if (el.matches('#coloane select')) el.form?.requestSubmit();
  });
  for (const type of ['dragenter', 'dragover']) {
    document.addEventListener(type, (event) => {
      const zone = event.target instanceof Element && event.target.closest('[data-drop]');
      if (!zone) return;
      event.preventDefault();
      zone.classList.add('over');
    });
  }
  document.addEventListener('dragleave', (event) => {
    const zone = event.target instanceof Element && event.target.closest('[data-drop]');
    if (zone && !zone.contains(event.relatedTarget)) zone.classList.remove('over');
  });
  document.addEventListener('drop', (event) => {
    const zone = event.target instanceof Element && event.target.closest('[data-drop]');
    if (!zone) return;
    event.preventDefault();
    zone.classList.remove('over');
    if (event.dataTransfer?.files?.length) sendUpload(event.dataTransfer.files);
  });
  document.addEventListener('htmx:before:request', (event) => {
    if (event.detail.ctx.sourceElement?.id !== 'incarcare') return;
    document.getElementById('incarcare-stare').innerHTML = '';
    const note = document.querySelector('[data-uploading]');
    if (note) note.hidden = false;
  });
  document.addEventListener('htmx:finally:request', (event) => {
    const { ctx } = event.detail;
    if (ctx.sourceElement?.id !== 'incarcare') return;
    const note = document.querySelector('[data-uploading]');
    if (note) note.hidden = true;
    // Refused: the picker is emptied, so that choosing the same file again (fixed) sends it again.
    if ((ctx.response?.status ?? 0) >= 400 || !ctx.response) {
      const input = document.getElementById('fisier');
      if (input) input.value = '';
    }
  });
  // A cell being corrected: Escape puts back the value it had (Enter sends its form).
  document.addEventListener('keydown', (event) => {
    const el = event.target;
    if (event.key !== 'Escape' || !(el instanceof HTMLInputElement) || !el.matches('[data-cell]')) return;
    el.value = el.defaultValue;
    el.blur();
  });
  // A refused action on the import screen (a 4xx/5xx notice) goes above the screen, which stays.
  document.addEventListener('htmx:before:swap', (event) => {
    const { ctx } = event.detail;
    const status = ctx.response?.status ?? 0;
    if (status < 400 || ctx.target?.id !== 'import') return;
    event.preventDefault();
    const box = document.getElementById('import-stare');
    if (!box) return;
    const html = /^text\/html/.test(ctx.response.headers.get('Content-Type') ?? '') ? ctx.text : null;
    if (html) box.innerHTML = html;
    else box.textContent = `Cererea a eșuat (HTTP ${status}); nimic nu s-a schimbat. Încercați din nou.`;
    box.querySelector('.notice')?.setAttribute('tabindex', '-1');
    box.querySelector('.notice')?.focus();
  });
})();
