import { normalizeText } from './text';
import { ABBREVIATIONS, STOP_WORDS, TRADE_VOCABULARY, WEAK_WORDS } from './trade-vocabulary';

export interface Suggestion {
  cod_prestatie: string;
  denumire: string;
  /** 0–1: how clearly this code wins over the next one. */
  scor: number;
  /** Why: the name is a registry code, it is like one the account mapped, or the trade vocabulary. */
  sursa: 'cod' | 'exemplu' | 'vocabular';
}

/** A name the account has already tied to a registry code (its mapping's code, a text rule's pattern). */
export interface SuggestionExample {
  text: string;
  cod_prestatie: string;
}

export interface SuggestOptions {
  /** The workshop's code of the operation, tried as a registry code too. */
  code?: string;
  /** Only ever the asking account's own mappings and rules. */
  examples?: readonly SuggestionExample[];
}

/** Below this share of the name's weight nothing is suggested (only weak words matched). */
const MIN_SCORE = 0.5;
/** An example this similar (token overlap) decides on its own. */
const EXAMPLE_SIMILARITY = 0.5;
/** The first word of a registry name says what kind of operation it is. */
const HEAD_WEIGHT = 2;
const WEAK_WEIGHT = 0.3;
const STEM = 6;

const stem = (w: string) => w.slice(0, STEM);
const sameStem = (a: string, b: string) => {
  const x = stem(a);
  const y = stem(b);
  return x.startsWith(y) || y.startsWith(x);
};
const compact = (s: string) => normalizeText(s).replace(/[^a-z0-9]/g, '');

/** The words of a name: normalised, abbreviations expanded, stop words dropped. */
export function nameWords(text: string): string[] {
  return normalizeText(text)
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !/^\d+$/.test(w))
    .map((w) => ABBREVIATIONS.get(w) ?? w)
    .filter((w) => !STOP_WORDS.has(w));
}

/** The nomenclator's concept words a name's word stands for (vocabulary, else the word itself). */
function concepts(word: string): string[] {
  const found = new Set<string>();
  for (const [key, targets] of TRADE_VOCABULARY) {
    if (key.length >= 4 ? word.startsWith(key) : word === key) for (const t of targets) found.add(t);
  }
  if (found.size === 0 && word.length >= 4) found.add(word);
  return [...found];
}

interface Entry {
  cod: string;
  denumire: string;
  words: string[];
}

const entryCache = new WeakMap<ReadonlyMap<string, string>, Entry[]>();
function entries(nomenclator: ReadonlyMap<string, string>): Entry[] {
  let list = entryCache.get(nomenclator);
  if (!list) {
    list = [...nomenclator].map(([cod, denumire]) => ({ cod, denumire, words: nameWords(denumire) }));
    entryCache.set(nomenclator, list);
  }
  return list;
}

function exactCode(candidates: Array<string | undefined>, nomenclator: ReadonlyMap<string, string>): Suggestion | null {
  for (const c of candidates) {
    if (!c) continue;
    const key = compact(c);
    if (!key) continue;
    for (const [cod, denumire] of nomenclator) {
      if (compact(cod) === key) return { cod_prestatie: cod, denumire, scor: 1, sursa: 'cod' };
    }
  }
  return null;
}

function fromExamples(words: string[], examples: readonly SuggestionExample[], nomenclator: ReadonlyMap<string, string>): Suggestion | null {
  const mine = new Set(words.map(stem));
  if (mine.size === 0) return null;
  let best: Suggestion | null = null;
  for (const ex of examples) {
    const denumire = nomenclator.get(ex.cod_prestatie);
    if (denumire === undefined) continue;
    const theirs = new Set(nameWords(ex.text).map(stem));
    if (theirs.size === 0) continue;
    let common = 0;
    for (const w of mine) if (theirs.has(w)) common++;
    const similarity = common / (mine.size + theirs.size - common);
    if (similarity >= EXAMPLE_SIMILARITY && (!best || similarity > best.scor)) {
      best = { cod_prestatie: ex.cod_prestatie, denumire, scor: Math.round(similarity * 1000) / 1000, sursa: 'exemplu' };
    }
  }
  return best;
}

function fromVocabulary(words: string[], nomenclator: ReadonlyMap<string, string>): Suggestion | null {
  const list = entries(nomenclator);
  const total = list.length;
  // Rarer nomenclator words tell codes apart better (inverse document frequency).
  const idf = (concept: string) => {
    const df = list.filter((e) => e.words.some((w) => sameStem(w, concept))).length;
    return df === 0 ? 0 : Math.log((total + 1) / df);
  };
  const scores = new Map<string, number>();
  const nameConcepts = new Set(words.flatMap(concepts));
  for (const concept of nameConcepts) {
    const weight = idf(concept) * (WEAK_WORDS.has(concept) ? WEAK_WEIGHT : 1);
    if (weight === 0) continue;
    for (const e of list) {
      const at = e.words.findIndex((w) => sameStem(w, concept));
      if (at < 0) continue;
      scores.set(e.cod, (scores.get(e.cod) ?? 0) + weight * (at === 0 ? HEAD_WEIGHT : 1));
    }
  }
  const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const [first, second] = ranked;
  if (!first || first[1] < MIN_SCORE) return null;
  const scor = Math.round((first[1] / (first[1] + (second?.[1] ?? 0))) * 1000) / 1000;
  return { cod_prestatie: first[0], denumire: nomenclator.get(first[0]) ?? '', scor, sursa: 'vocabular' };
}

/**
 * The registry code a careful person would pick for a workshop operation called `name`:
 * the name or code itself when it is a registry code; else the code of the account's own
 * most similar example; else the code whose nomenclator name shares most of the name's
 * trade concepts (TRADE_VOCABULARY), the rarer words and a name's first word counting more.
 */
export function suggestCode(name: string, nomenclator: ReadonlyMap<string, string>, options: SuggestOptions = {}): Suggestion | null {
  const exact = exactCode([name, options.code], nomenclator);
  if (exact) return exact;
  const words = nameWords(name);
  if (words.length === 0) return null;
  return fromExamples(words, options.examples ?? [], nomenclator) ?? fromVocabulary(words, nomenclator);
}
