// The Integrare page's behaviour (web/integrare), as listeners: the CSP allows no inline script.
(() => {
  // ---- Integrare: language tabs (the choice remembered) and copy buttons --------------------
  const LANG_KEY = 'integrare.limbaj';
  function showLanguage(lang, remember) {
    const tabs = document.querySelectorAll('[data-lang-tabs] [role=tab]');
    if (!tabs.length) return;
    const known = [...tabs].some((t) => t.dataset.lang === lang);
    const chosen = known ? lang : tabs[0].dataset.lang;
    for (const tab of tabs) {
      const selected = tab.dataset.lang === chosen;
      tab.setAttribute('aria-selected', String(selected));
      tab.tabIndex = selected ? 0 : -1;
    }
    for (const panel of document.querySelectorAll('[data-lang-panel]')) panel.hidden = panel.dataset.langPanel !== chosen;
    if (remember) {
      try {
        localStorage.setItem(LANG_KEY, chosen);
      } catch {
        // Storage refused (private mode): the tab still changes, it is just not remembered.
      }
    }
  }
  function setUpLanguageTabs() {
    const list = document.querySelector('[data-lang-tabs]');
    if (!list) return;
    list.hidden = false;
    list.setAttribute('role', 'tablist');
    list.setAttribute('aria-label', 'Limbajul exemplelor');
    for (const name of document.querySelectorAll('.lang-name')) name.classList.add('visually-hidden');
    let saved = null;
    try {
      saved = localStorage.getItem(LANG_KEY);
    } catch {}
    showLanguage(saved, false);
    list.addEventListener('click', (event) => {
      const tab = event.target.closest?.('[role=tab]');
      if (tab) showLanguage(tab.dataset.lang, true);
    });
    // Arrow keys move between tabs, as in every tab list.
    list.addEventListener('keydown', (event) => {
      if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
      const tabs = [...list.querySelectorAll('[role=tab]')];
      const at = tabs.indexOf(document.activeElement);
      if (at < 0) return;
      const next = tabs[(at + (event.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
      showLanguage(next.dataset.lang, true);
      next.focus();
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setUpLanguageTabs);
  else setUpLanguageTabs();
  // The block's own text, as shown: nothing added, nothing left out.
  document.addEventListener('click', async (event) => {
    const button = event.target.closest?.('button[data-copy]');
    if (!button) return;
    const block = document.getElementById(button.dataset.copy);
    if (!block) return;
    try {
      await navigator.clipboard.writeText(block.textContent);
      button.textContent = 'Copiat';
    } catch {
      button.textContent = 'Selectați și copiați manual';
    }
    setTimeout(() => {
      button.textContent = 'Copiază';
    }, 2000);
  });
})();
