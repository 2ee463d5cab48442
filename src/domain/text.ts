const NON_ASCII = /[^\x00-\x7f]/;

/** Lower-case, diacritics removed (ș, ț, ă, â, î and their cedilla forms), spaces collapsed. */
export function normalizeText(text: string): string {
  // ASCII is its own NFD and has no combining marks: most names skip the decomposition.
  const decomposed = NON_ASCII.test(text) ? text.normalize('NFD').replace(/[\u0300-\u036f]/g, '') : text;
  return decomposed.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Tokens sorted alphabetically, punctuation dropped: "Periodică revizie" → "periodica revizie". */
export function tokenSort(text: string): string {
  return normalizeText(text)
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .sort()
    .join(' ');
}

// A NUL, or half of a surrogate pair: PostgreSQL cannot store either in text or jsonb.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when `text` holds a character that no text column can store (NUL, a lone surrogate). */
export function hasUnstorableChar(text: string): boolean {
  return UNSTORABLE.test(text);
}

/** `text` with every such character replaced by U+FFFD, for labels read from a file (headers, sheet names). */
export function replaceUnstorable(text: string): string {
  return hasUnstorableChar(text) ? text.replace(new RegExp(UNSTORABLE.source, 'g'), '\uFFFD') : text;
}
