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
  // ---- The batch's screen (/import/N) ----------------------------------------------------
  const screen = () => document.getElementById('import');
  /** Focus on an element that is not a control (a notice, a heading), in view. */
  function land(el, { block = 'nearest' } = {}) {
    if (!el) return false;
    if (!el.matches('a, button, input, select, textarea, [tabindex]')) el.setAttribute('tabindex', '-1');
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block });
    return true;
  }
  // The screen just opened (after an upload, or from a link): its heading, so a screen reader
  // starts at the file's name and Tab goes on from there. A reload or Back keeps its scroll.
  const opened = performance.getEntriesByType('navigation')[0]?.type === 'navigate';
  if (screen() && opened && document.activeElement === document.body && !location.hash) document.getElementById('import-titlu')?.focus();

  // A cell is saved when it is left changed (Tab, a click elsewhere) or on Enter; Escape puts
  // back the stored value and stays there. Its `defaultValue` is what the server stored (the
  // screen re-renders it after every action), so a cell never shows a value that is not stored
  // for longer than its save takes; a refused save puts the stored one back (below).
  const isCell = (el) => el instanceof HTMLInputElement && el.matches('[data-cell]');
  /** What each cell (by id) was last sent with, until its answer is on screen. */
  const sentCells = new Map();
  /** Cells changed again while their previous save was still going: sent once it is done. */
  const laterCells = new Set();
  function saveCell(input) {
    if (input.value === input.defaultValue || sentCells.get(input.id) === input.value) return;
    if (input.form?.hasAttribute('data-busy')) {
      laterCells.add(input.id);
      return;
    }
    sentCells.set(input.id, input.value);
    input.form?.requestSubmit();
  }
  document.addEventListener('htmx:finally:request', (event) => {
    const input = event.detail.ctx?.sourceElement?.querySelector?.('[data-cell]');
    if (!input || !laterCells.delete(input.id)) return;
    const current = document.getElementById(input.id);
    if (isCell(current)) saveCell(current);
  });
  document.addEventListener('change', (event) => {
    if (isCell(event.target)) saveCell(event.target);
  });

  // ---- The file's columns: moving through a select's options sends nothing ----------------
  // A pick from the open list (a pointer) saves at once, as before; a change made with keys
  // (arrows, letters) waits, with a note, until Enter or the form's button confirms it; Escape
  // puts the saved field back. The mapping is the whole form, so one confirmation saves every
  // column changed before it.
  const columnSelect = (el) => el instanceof HTMLSelectElement && el.matches('#coloane select');
  const keyed = new WeakSet();
  const KEYS_THAT_DO_NOT_MOVE = new Set(['Tab', 'Enter', 'Escape', 'Shift', 'Control', 'Alt', 'Meta', 'CapsLock']);
  const unsaved = (select) => select.selectedOptions[0] !== ([...select.options].find((o) => o.defaultSelected) ?? select.options[0]);
  /** Shows the note while any column's select differs from the saved mapping. */
  function showUnsavedColumns() {
    const form = document.getElementById('coloane');
    const note = document.getElementById('coloane-nesalvate');
    if (!form || !note) return;
    const changed = [...form.querySelectorAll('select')].filter(unsaved);
    note.hidden = changed.length === 0;
    for (const select of form.querySelectorAll('select')) {
      const waiting = changed.includes(select);
      select.toggleAttribute('data-unsaved', waiting);
      // The note is read with the select it is about, and only then (a hidden note would be read too).
      if (waiting) select.setAttribute('aria-describedby', note.id);
      else select.removeAttribute('aria-describedby');
    }
  }
  document.addEventListener('pointerdown', (event) => {
    if (columnSelect(event.target)) keyed.delete(event.target);
  });
  document.addEventListener('change', (event) => {
    const el = event.target;
    if (!columnSelect(el)) return;
    if (keyed.has(el)) showUnsavedColumns();
    else el.form?.requestSubmit();
  });

  document.addEventListener('keydown', (event) => {
    const el = event.target;
    if (isCell(el)) {
      if (event.key === 'Enter') {
        // Saved here, not by the form's own submission: Enter then leaving the cell sends it once.
        event.preventDefault();
        saveCell(el);
      } else if (event.key === 'Escape') {
        el.value = el.defaultValue;
        sentCells.delete(el.id);
        el.select();
      }
      return;
    }
    if (columnSelect(el)) {
      if (event.key === 'Enter') {
        event.preventDefault();
        el.form?.requestSubmit();
      } else if (event.key === 'Escape') {
        for (const o of el.options) o.selected = o.defaultSelected;
        if (![...el.options].some((o) => o.defaultSelected)) el.selectedIndex = 0;
        showUnsavedColumns();
      } else if (!KEYS_THAT_DO_NOT_MOVE.has(event.key)) keyed.add(el);
    }
  });

  // ---- Every action on the screen: its answer, and where focus goes -----------------------
  /** The element focused when an answer came, by id: a morph keeps it, a row filtered out does not. */
  let focusedId = null;
  document.addEventListener('htmx:before:swap', (event) => {
    const { ctx } = event.detail;
    if (ctx.target?.id !== 'import') return;
    focusedId = document.activeElement?.id || null;
    const status = ctx.response?.status ?? 0;
    if (status < 400) return;
    // A refused action (a 4xx/5xx notice) goes above the screen, which stays.
    event.preventDefault();
    const html = /^text\/html/.test(ctx.response.headers.get('Content-Type') ?? '') ? ctx.text : null;
    refused(ctx, html, `Cererea a eșuat (HTTP ${status}); nimic nu s-a schimbat. Încercați din nou.`);
  });
  // No answer at all (network down, timeout): said the same way.
  document.addEventListener('htmx:error', (event) => {
    const { ctx } = event.detail;
    if (ctx?.target?.id !== 'import') return;
    refused(ctx, null, 'Serverul nu a răspuns; nimic nu s-a schimbat. Verificați conexiunea și încercați din nou.');
  });
  function refused(ctx, html, text) {
    const box = document.getElementById('import-stare');
    if (!box) return;
    if (html) box.innerHTML = html;
    else {
      box.innerHTML = '';
      const div = document.createElement('div');
      div.className = 'notice error';
      div.setAttribute('role', 'alert');
      div.textContent = text;
      box.append(div);
    }
    const notice = box.querySelector('.notice');
    // A cell whose save was refused shows the stored value again; the notice keeps what was typed.
    const input = ctx.sourceElement?.querySelector?.('[data-cell]');
    if (input && isCell(input)) {
      const typed = sentCells.get(input.id) ?? input.value;
      sentCells.delete(input.id);
      if (typed !== input.defaultValue) {
        const p = document.createElement('p');
        p.textContent = `Valoarea „${typed}” nu a fost salvată; celula arată din nou valoarea salvată.`;
        notice?.append(p);
      }
      input.value = input.defaultValue;
    }
    land(notice);
  }

  document.addEventListener('htmx:after:swap', (event) => {
    const { ctx } = event.detail;
    const target = ctx?.target;
    // A refused upload: its notice, where the picker is.
    if (target?.id === 'incarcare-stare') {
      land(target.querySelector('.notice'));
      return;
    }
    if (target?.id !== 'import' || (ctx.response?.status ?? 0) >= 400) return;
    showUnsavedColumns();
    const source = ctx.sourceElement;
    // Which action, by its address: its form may be gone from the screen it answered (a code mapped).
    const action = new URL(ctx.request?.action ?? '', location.origin).pathname.split('/').pop();
    const cell = action === 'editeaza' ? source?.querySelector?.('[data-cell]') : null;
    if (cell) {
      // The cell's own answer: the stored value (a date as the screen writes it), unless the
      // clerk is already typing something else in it.
      if (cell.value === sentCells.get(cell.id)) cell.value = cell.defaultValue;
      sentCells.delete(cell.id);
    }
    // After commit: its summary's heading, with the notice above it in view too.
    const committed = document.getElementById('trimis-titlu');
    if (action === 'confirma' && committed) {
      land(committed, { block: 'start' });
      document.getElementById('import-stare')?.scrollIntoView({ block: 'start' });
      return;
    }
    // Saving the columns, a code for its rows, a held row: what happened, said at the top.
    const notice = document.querySelector('#import-stare .notice');
    if (['coloane', 'mapare-operatie', 'revizuire'].includes(action) && notice) {
      land(notice);
      return;
    }
    // Anything else (a cell saved, a chip, a page): focus stays where the clerk is, or, when that
    // element is gone (a row filtered out by its fix), the rows' heading.
    if (document.activeElement === document.body || !document.activeElement?.isConnected) {
      if (!(focusedId && land(document.getElementById(focusedId)))) land(document.getElementById('previzualizare-titlu'));
    }
  });
})();
