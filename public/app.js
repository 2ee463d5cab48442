// The dashboard's behaviour, as listeners: the CSP allows no inline script and no eval, so
// nothing here is an hx-on attribute or a trigger filter.
(() => {
  const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content;
  const panel = () => document.getElementById('panou');
  const list = () => document.getElementById('coada');
  const panelOpen = () => Boolean(panel()?.querySelector('[data-open]'));
  const isPoll = (el) => el instanceof Element && el.matches('[data-poll]');
  const isPanelPoll = (el) => el instanceof Element && el.matches('[data-poll-panel]');
  /** Rows ticked for a bulk action, or its confirmation shown: the list must not move under them. */
  const selecting = () => Boolean(document.querySelector('#coada input[type=checkbox]:checked, #confirmare .confirm'));
  /** The ETag of the last list each URL answered, sent back so that an unchanged list is a 304. */
  const etags = new Map();
  /** A refresh asked for by an action or by closing the panel, which no pause holds back. */
  let refreshWanted = false;
  const refresh = () => {
    refreshWanted = true;
    document.body.dispatchEvent(new CustomEvent('coada:schimbata'));
  };
  const clock = new Intl.DateTimeFormat('ro-RO', { timeZone: 'Europe/Bucharest', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const hhmm = new Intl.DateTimeFormat('ro-RO', { timeZone: 'Europe/Bucharest', hour: '2-digit', minute: '2-digit' });

  /** A page link was followed: once the new page is in, land on the list's heading. */
  let landOnList = false;
  /** Whether the reader was inside the panel when its poll re-rendered it. */
  let panelHadFocus = false;

  // ---- Polling: paused while the reader works, backing off after a failure -----------------
  /** Failed polls in a row, and how many of the list's 5 s ticks to let pass before the next
   * one goes (10 s → 20 → 40 → 60 s at most). Counted in ticks, not read off the clock: a slow
   * failed answer must not push the retry past the tick it promised. */
  const POLL_S = 5;
  let failures = 0;
  let ticksToSkip = 0;
  const backoffS = () => Math.min(POLL_S * 2 ** failures, 60);

  function pollState(text) {
    const state = document.getElementById('stare-actualizare');
    if (state && state.textContent !== text) state.textContent = text;
  }
  function pauseReason() {
    if (document.hidden) return 'oprită cât timp pagina nu este vizibilă';
    if (panelOpen()) return 'oprită cât timp detaliile sunt deschise';
    if (selecting()) return 'oprită cât timp sunt rânduri bifate';
    return null;
  }
  const showPollState = () => {
    const reason = pauseReason();
    pollState(reason ? `reîmprospătarea este ${reason}` : failures > 0 ? 'reîmprospătarea a eșuat; se reîncearcă' : 'se reîmprospătează automat');
  };

  /** A notice above the list (the list itself stays): `html` is our own server's notice fragment. */
  function listNotice({ text, html, kind = 'error', poll = false }) {
    const box = document.getElementById('coada-stare');
    if (!box) return;
    box.innerHTML = '';
    let node;
    if (html) {
      node = document.createElement('div');
      node.innerHTML = html;
    } else {
      node = document.createElement('div');
      node.className = `notice ${kind}`;
      node.setAttribute('role', kind === 'error' ? 'alert' : 'status');
      node.textContent = text;
    }
    if (poll) node.dataset.pollNotice = '';
    box.append(node);
  }
  function clearPollNotice() {
    document.querySelector('#coada-stare [data-poll-notice]')?.remove();
  }
  function pollFailed() {
    failures += 1;
    const wait = backoffS();
    ticksToSkip = wait / POLL_S - 1;
    listNotice({
      text: `Actualizarea a eșuat la ${hhmm.format(new Date())}; reîncerc în ${wait} s. Lista de mai jos este cea de la ${document.getElementById('actualizat')?.textContent ?? '—'}.`,
      poll: true,
    });
    showPollState();
  }
  function pollSucceeded() {
    if (failures > 0) clearPollNotice();
    failures = 0;
    ticksToSkip = 0;
    const stamp = document.getElementById('actualizat');
    if (stamp) stamp.textContent = clock.format(new Date());
    showPollState();
  }

  // ---- Every request: CSRF, polls, and one request per button or form at a time -----------
  /** Elements disabled for a request in flight, re-enabled when it ends. */
  const disabledFor = new WeakMap();
  function disableWhileRunning(ctx) {
    const source = ctx.sourceElement;
    const form = source instanceof HTMLFormElement ? source : source.closest?.('form');
    const buttons = new Set();
    if (source.matches('button, input[type=submit]')) buttons.add(source);
    if (ctx.request.submitter) buttons.add(ctx.request.submitter);
    if (form) for (const el of form.querySelectorAll('button, input[type=submit]')) buttons.add(el);
    if (form?.id) for (const el of document.querySelectorAll(`button[form="${form.id}"]`)) buttons.add(el);
    const off = [...buttons].filter((b) => !b.disabled);
    for (const b of off) b.disabled = true;
    // A link cannot be disabled: it is marked busy, and a second activation is dropped below.
    source.dataset.busy = '';
    form?.setAttribute('data-busy', '');
    disabledFor.set(ctx, { off, marked: [source, form].filter(Boolean) });
  }

  document.addEventListener('htmx:config:request', (event) => {
    const { ctx } = event.detail;
    const token = csrf();
    if (token) ctx.request.headers['X-CSRF-Token'] = token;
    const source = ctx.sourceElement;
    if (isPanelPoll(source)) {
      if (document.hidden) return event.preventDefault();
      ctx.request.headers['X-Poll'] = '1';
      ctx.request.headers['If-None-Match'] = `"${source.dataset.version}"`;
      return;
    }
    if (isPoll(source)) {
      const wanted = refreshWanted;
      refreshWanted = false;
      showPollState();
      // The list does not move under a reader (panel open, rows ticked, hidden tab), and after
      // a failure it waits out its back-off.
      if (!wanted && pauseReason()) return event.preventDefault();
      if (!wanted && ticksToSkip > 0) {
        ticksToSkip -= 1;
        return event.preventDefault();
      }
      ctx.request.headers['X-Poll'] = '1';
      const etag = etags.get(ctx.request.action);
      if (etag) ctx.request.headers['If-None-Match'] = etag;
      return;
    }
    // A second click, Enter or tap while the first request runs sends nothing. (Only what a
    // reader activates: a history restore or a script's request comes from a container.)
    if (!source.matches?.('a, button, input, select, form')) return;
    if (source.closest('[data-busy]')) return event.preventDefault();
    disableWhileRunning(ctx);
    if (source.closest?.('.pages')) landOnList = true;
  });

  document.addEventListener('htmx:finally:request', (event) => {
    const { ctx } = event.detail;
    const held = disabledFor.get(ctx);
    if (held) {
      for (const b of held.off) b.disabled = false;
      for (const el of held.marked) el.removeAttribute('data-busy');
      disabledFor.delete(ctx);
    }
    const l = list();
    if (l?.classList.contains('loading')) {
      l.classList.remove('loading');
      l.removeAttribute('aria-busy');
    }
  });

  // A plain form (sign-in, sign-out, the account's forms without htmx) is sent once too.
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || form.matches('[hx-post], [hx-get]')) return;
    if (form.hasAttribute('data-busy')) return event.preventDefault();
    form.setAttribute('data-busy', '');
    // After the submit event, so that the pressed button's name and value are still sent.
    setTimeout(() => {
      for (const b of form.querySelectorAll('button, input[type=submit]')) b.disabled = true;
    });
  });
  // Back to a page kept in the back/forward cache: its forms are usable again.
  window.addEventListener('pageshow', () => {
    for (const form of document.querySelectorAll('form[data-busy]:not([hx-post]):not([hx-get])')) {
      form.removeAttribute('data-busy');
      for (const b of form.querySelectorAll('button, input[type=submit]')) b.disabled = false;
    }
  });

  // A slow list: a filter, a chip or a page link dims the list and marks it busy until its
  // answer is in (a poll does not: it changes nothing the reader asked for).
  document.addEventListener('htmx:before:request', (event) => {
    const { ctx } = event.detail;
    if (ctx.target?.id === 'coada' && !isPoll(ctx.sourceElement)) {
      ctx.target.classList.add('loading');
      ctx.target.setAttribute('aria-busy', 'true');
    }
  });

  document.addEventListener('htmx:after:request', (event) => {
    const { ctx } = event.detail;
    const { status, headers } = ctx.response ?? {};
    if (isPoll(ctx.sourceElement)) {
      if (status === 200 && headers.get('ETag')) etags.set(ctx.request.action, headers.get('ETag'));
      if (status === 200 || status === 304) pollSucceeded();
    }
    // An action in the panel changed the list: refresh it now (the panel's button may be gone).
    if (headers?.get('HX-Trigger')?.includes('coada:schimbata')) queueMicrotask(refresh);
  });

  // A failed answer never replaces the list (htmx 4 swaps 4xx/5xx): it becomes a notice above
  // it. A failed panel poll keeps the panel; the next tick tries again.
  document.addEventListener('htmx:before:swap', (event) => {
    const { ctx } = event.detail;
    const status = ctx.response?.status ?? 0;
    const source = ctx.sourceElement;
    if (isPanelPoll(source)) {
      panelHadFocus = Boolean(panel()?.contains(document.activeElement));
      if (status >= 400) event.preventDefault();
      return;
    }
    if (status < 400 || ctx.target?.id !== 'coada') return;
    event.preventDefault();
    if (isPoll(source)) return pollFailed();
    const html = /^text\/html/.test(ctx.response.headers.get('Content-Type') ?? '') && status < 500 ? ctx.text : null;
    if (html) listNotice({ html });
    else listNotice({ text: `Cererea a eșuat la ${hhmm.format(new Date())} (HTTP ${status}). Lista de mai jos a rămas cea de dinainte; încercați din nou.` });
  });
  // No answer at all (network down, timeout).
  document.addEventListener('htmx:error', (event) => {
    const { ctx } = event.detail;
    const source = ctx?.sourceElement;
    if (isPanelPoll(source)) return;
    if (isPoll(source)) return pollFailed();
    const where = ctx?.target?.id === 'coada' ? 'Lista de mai jos a rămas cea de dinainte.' : 'Nimic nu s-a schimbat pe ecran.';
    listNotice({ text: `Serverul nu a răspuns la ${hhmm.format(new Date())}. ${where} Verificați conexiunea și încercați din nou.` });
  });

  // ---- The panel: opened, followed, closed; its own address (/trimiteri/{id}) --------------
  const permalink = /^\/trimiteri\/(\d+)$/;
  const listUrl = () => `/${location.search}`;
  // The first page of the tab gets htmx's history state, so that Back to it is htmx's to restore.
  if (!history.state) history.replaceState({ htmx: true }, '', location.href);
  // A permalink opened afresh (a link, a bookmark): the list goes beneath it, so Back closes the panel.
  if (permalink.test(location.pathname) && performance.getEntriesByType('navigation')[0]?.type === 'navigate') {
    const here = location.href;
    history.replaceState({ htmx: true }, '', listUrl());
    history.pushState({ htmx: true }, '', here);
  }

  function closePanel({ push = true } = {}) {
    const p = panel();
    if (!p || !panelOpen()) return;
    const id = p.querySelector('h2')?.textContent?.match(/\d+/)?.[0];
    p.innerHTML = '';
    if (push && permalink.test(location.pathname)) history.pushState({ htmx: true }, '', listUrl());
    // Back to where the reader was: the row's button, if it is still listed.
    document.querySelector(`#t-${id} .nr button`)?.focus();
    refresh();
  }

  function closeConfirm() {
    const box = document.getElementById('confirmare');
    if (box) box.innerHTML = '';
    document.getElementById('lista-titlu')?.focus();
    showPollState();
  }

  document.addEventListener('click', (event) => {
    if (!(event.target instanceof Element)) return;
    if (event.target.closest('[data-close-panel]')) closePanel();
    if (event.target.closest('[data-close-confirm]')) closeConfirm();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    if (document.querySelector('#confirmare .confirm')) closeConfirm();
    else closePanel();
  });
  document.addEventListener('change', (event) => {
    if (event.target instanceof Element && event.target.matches('#coada input[type=checkbox]')) showPollState();
  });

  // Back and Forward between the list and a panel: open or close the panel in place, when the
  // list under it is the same; anything else is htmx's own restore (a fresh page).
  document.addEventListener('htmx:before:history:restore', (event) => {
    const url = new URL(event.detail.path, location.origin);
    const match = permalink.exec(url.pathname);
    const shown = list()?.getAttribute('hx-get');
    if (!shown || !(match || url.pathname === '/') || new URL(shown, location.origin).search !== url.search) return;
    event.preventDefault();
    if (match) htmx.ajax('GET', `/_fragments/trimitere/${match[1]}`, { target: '#panou' });
    else closePanel({ push: false });
  });

  document.addEventListener('htmx:after:swap', (event) => {
    const { ctx } = event.detail;
    const target = ctx?.target;
    const source = ctx?.sourceElement;
    if (target?.id === 'coada' && !isPoll(source)) {
      // A list the reader asked for is as fresh as a poll's.
      pollSucceeded();
      document.querySelector('#coada-stare .notice')?.remove();
      if (landOnList) {
        landOnList = false;
        const heading = document.getElementById('lista-titlu');
        heading?.scrollIntoView({ block: 'start' });
        heading?.focus({ preventScroll: true });
      }
    }
    if (target?.id === 'confirmare') {
      // The confirmation or the outcome: focus it, so that a keyboard or screen reader is there.
      const into = target.querySelector('[tabindex="-1"]');
      into?.focus();
      if (target.querySelector('.notice.ok')) for (const box of document.querySelectorAll('#coada input[type=checkbox]:checked')) box.checked = false;
      showPollState();
    }
    if (target?.id !== 'panou') return;
    // The panel followed its submission: keep the reader where they were.
    if (isPanelPoll(source) && !panelHadFocus) return;
    // Only a panel that opened gets an address (a 404's notice does not).
    const link = (ctx.response?.status ?? 200) < 400 ? source?.closest?.('[data-permalink]')?.dataset.permalink : undefined;
    if (link && !permalink.test(location.pathname)) history.pushState({ htmx: true }, '', `${link}${location.search}`);
    else if (link && location.pathname !== link) history.replaceState({ htmx: true }, '', `${link}${location.search}`);
    // A panel just opened or answered an action: focus its notice, else its heading.
    const heading = target.querySelector('.notice') ?? target.querySelector('h2');
    if (!heading) return;
    heading.setAttribute('tabindex', '-1');
    heading.focus();
    showPollState();
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
    if (!document.hidden && !panelOpen() && !selecting()) refresh();
  });
})();
