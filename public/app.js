// The dashboard's behaviour, as listeners: the CSP allows no inline script and no eval, so
// nothing here is an hx-on attribute or a trigger filter.
(() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content;
  const panel = () => document.getElementById('panou');
  const panelOpen = () => Boolean(panel()?.querySelector('[data-open]'));
  const isPoll = (el) => el instanceof Element && el.matches('[data-poll]');
  /** The ETag of the last list each URL answered, sent back so that an unchanged list is a 304. */
  const etags = new Map();
  /** A refresh asked for by an action or by closing the panel, which no pause holds back. */
  let refreshWanted = false;
  const refresh = () => {
    refreshWanted = true;
    document.body.dispatchEvent(new CustomEvent('coada:schimbata'));
  };
  const clock = new Intl.DateTimeFormat('ro-RO', { timeZone: 'Europe/Bucharest', hour: '2-digit', minute: '2-digit', second: '2-digit' });

  document.addEventListener('htmx:config:request', (event) => {
    const { ctx } = event.detail;
    const token = csrf();
    if (token) ctx.request.headers['X-CSRF-Token'] = token;
    if (!isPoll(ctx.sourceElement)) return;
    // The list does not move under a reader: no poll while a panel is open or the tab is hidden.
    const wanted = refreshWanted;
    refreshWanted = false;
    if (!wanted && (document.hidden || panelOpen())) {
      event.preventDefault();
      return;
    }
    ctx.request.headers['X-Poll'] = '1';
    const etag = etags.get(ctx.request.action);
    if (etag) ctx.request.headers['If-None-Match'] = etag;
  });

  // A slow list: a filter, a chip or a page link dims the list and marks it busy until its
  // answer is in (a poll does not: it changes nothing the reader asked for).
  const list = () => document.getElementById('coada');
  document.addEventListener('htmx:before:request', (event) => {
    const { ctx } = event.detail;
    if (ctx.target?.id === 'coada' && !isPoll(ctx.sourceElement)) {
      ctx.target.classList.add('loading');
      ctx.target.setAttribute('aria-busy', 'true');
    }
  });
  document.addEventListener('htmx:finally:request', () => {
    const l = list();
    if (l?.classList.contains('loading')) {
      l.classList.remove('loading');
      l.removeAttribute('aria-busy');
    }
  });

  document.addEventListener('htmx:after:request', (event) => {
    const { ctx } = event.detail;
    const { status, headers } = ctx.response ?? {};
    if (isPoll(ctx.sourceElement) && (status === 200 || status === 304)) {
      if (status === 200 && headers.get('ETag')) etags.set(ctx.request.action, headers.get('ETag'));
      const stamp = document.getElementById('actualizat');
      if (stamp) stamp.textContent = clock.format(new Date());
    }
    // An action in the panel changed the list: refresh it now (the panel's button may be gone).
    if (headers?.get('HX-Trigger')?.includes('coada:schimbata')) {
      queueMicrotask(refresh);
    }
  });

  function closePanel() {
    const p = panel();
    if (!p || !panelOpen()) return;
    const id = p.querySelector('h2')?.textContent?.match(/\d+/)?.[0];
    p.innerHTML = '';
    // Back to where the reader was: the row's button, if it is still listed.
    document.querySelector(`#t-${id} button`)?.focus();
    refresh();
  }

  document.addEventListener('click', (event) => {
    if (event.target instanceof Element && event.target.closest('[data-close-panel]')) closePanel();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closePanel();
  });
  // A panel just opened: focus it, so a keyboard user is where the content is.
  document.addEventListener('htmx:after:swap', (event) => {
    const target = event.detail.ctx?.target;
    const heading = target?.id === 'panou' ? target.querySelector('h2') : null;
    if (!heading) return;
    heading.setAttribute('tabindex', '-1');
    heading.focus();
  });
  // A serious registry code (Mapări, the panel's inline mapping) needs its confirmation box,
  // shown while such a code is selected; the server refuses the code without it anyway.
  document.addEventListener('change', (event) => {
    const select = event.target;
    if (!(select instanceof HTMLSelectElement) || !select.matches('[data-code-select]')) return;
    const box = select.nextElementSibling;
    if (!box?.matches('[data-grav-confirm]')) return;
    box.hidden = !select.selectedOptions[0]?.hasAttribute('data-grav');
    if (box.hidden) box.querySelector('input').checked = false;
  });
  // Back on the tab after a while: refresh at once rather than at the next tick.
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden && !panelOpen()) refresh();
  });
})();
