const NON_ASCII = /[^\x00-\x7f]/;

/** Lower-case, diacritics removed (ș, ț, ă, â, î and their cedilla forms), spaces collapsed. */
export function normalizeText(text: string): string {
  // ASCII is its own NFD and has no combining marks: most names skip the decomposition.
  const decomposed = NON_ASCII.test(text) ? text.normalize('NFD').replace(/[\u0300-\u036f]/g, '') : text;
  return decomposed
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}

/** Tokens sorted alphabetically, punctuation dropped: "Periodică revizie" → "periodica revizie". */
export function tokenSort(text: string): string {
  return normalizeText(text)
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .sort()
    .join(' ');
}
