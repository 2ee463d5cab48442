/** Lower-case, diacritics removed (ș, ț, ă, â, î and their cedilla forms), spaces collapsed. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
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
