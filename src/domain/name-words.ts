import { normalizeText } from './text';
import { ABBREVIATIONS, STOP_WORDS } from './trade-vocabulary';

/** The words of an operation's name: normalised, abbreviations expanded, stop words and numbers dropped. */
export function nameWords(text: string): string[] {
  return normalizeText(text)
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !/^\d+$/.test(w))
    .map((w) => ABBREVIATIONS.get(w) ?? w)
    .filter((w) => !STOP_WORDS.has(w));
}
