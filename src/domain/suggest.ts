import { nameWords } from './name-words';
import { isSerious, nameJustifies } from './serious-codes';
import { normalizeText } from './text';
import { TRADE_VOCABULARY, WEAK_WORDS } from './trade-vocabulary';

export { nameWords };

export interface Suggestion {
  cod_prestatie: string;
  denumire: string;
  /** 0–1: how sure the suggestion is (see `confidence` below); shown as "probabil (72 %)". */
  scor: number;
  /** Why: the name is a registry code, it is like one the account mapped, or the trade vocabulary. */
  sursa: 'cod' | 'exemplu' | 'vocabular';
  /** For `exemplu`: the account's own name (a mapped code, a rule's text) it is like. */
  asemanator_cu?: string;
  /** The code states a fact the law cares about (serious-codes.ts). */
  grav: boolean;
  /** Whether a form starts on this code; else the clerk picks it. One rule: `preselects`. */
  preselect: boolean;
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

/**
 * A suggestion this sure starts preselected; below it the clerk chooses. Measured with
 * `npm run bench:suggest` on both development sets (96 names): every wrong suggestion scored
 * 0.5 or less (a tie, or half of the name unknown to the vocabulary), so wrong preselections
 * end above 0.5; 0.6 keeps a margin over them and still preselects 67 % of the names, all right.
 */
export const PRESELECT_AT = 0.6;

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
const round = (n: number) => Math.round(n * 1000) / 1000;

/** The one preselection rule: sure enough, and a serious code only when the name speaks of it. */
export function preselects(s: Pick<Suggestion, 'cod_prestatie' | 'scor'>, name: string): boolean {
  return s.scor >= PRESELECT_AT && nameJustifies(s.cod_prestatie, name);
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

type Found = Omit<Suggestion, 'grav' | 'preselect'>;

function exactCode(candidates: Array<string | undefined>, nomenclator: ReadonlyMap<string, string>): Found | null {
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

function fromExamples(name: string, words: string[], examples: readonly SuggestionExample[], nomenclator: ReadonlyMap<string, string>): Found | null {
  const mine = new Set(words.map(stem));
  if (mine.size === 0) return null;
  let best: Found | null = null;
  for (const ex of examples) {
    const denumire = nomenclator.get(ex.cod_prestatie);
    // A serious code is never carried over to a name that does not speak of it.
    if (denumire === undefined || !nameJustifies(ex.cod_prestatie, name)) continue;
    const theirs = new Set(nameWords(ex.text).map(stem));
    if (theirs.size === 0) continue;
    let common = 0;
    for (const w of mine) if (theirs.has(w)) common++;
    const similarity = common / (mine.size + theirs.size - common);
    if (similarity >= EXAMPLE_SIMILARITY && (!best || similarity > best.scor)) {
      best = { cod_prestatie: ex.cod_prestatie, denumire, scor: round(similarity), sursa: 'exemplu', asemanator_cu: ex.text };
    }
  }
  return best;
}

/**
 * Scores every code by the name's trade concepts found in its nomenclator name (rarer words
 * and a registry name's first word count more). A code needs a concept that is not a weak
 * word: "schimb" or "înlocuire" alone says nothing of what was done. A serious code the name
 * does not speak of is out of the running, so it is never the top pick by accident.
 *
 * The confidence is the winner's share of the two best scores (how clearly it wins) times the
 * share of the name's words the vocabulary understood (a name half unknown is half a guess).
 */
function fromVocabulary(name: string, words: string[], nomenclator: ReadonlyMap<string, string>): Found | null {
  const list = entries(nomenclator);
  const total = list.length;
  // Rarer nomenclator words tell codes apart better (inverse document frequency).
  const idf = (concept: string) => {
    const df = list.filter((e) => e.words.some((w) => sameStem(w, concept))).length;
    return df === 0 ? 0 : Math.log((total + 1) / df);
  };
  const scores = new Map<string, number>();
  let understood = 0;
  let counted = 0;
  for (const word of new Set(words)) {
    const wordConcepts = concepts(word);
    const weak = wordConcepts.length > 0 && wordConcepts.every((c) => WEAK_WORDS.has(c));
    if (weak) continue;
    counted++;
    let known = false;
    for (const concept of wordConcepts) {
      const weight = idf(concept);
      if (weight === 0) continue;
      known = true;
      for (const e of list) {
        const at = e.words.findIndex((w) => sameStem(w, concept));
        if (at < 0 || !nameJustifies(e.cod, name)) continue;
        scores.set(e.cod, (scores.get(e.cod) ?? 0) + weight * (at === 0 ? HEAD_WEIGHT : 1));
      }
    }
    if (known) understood++;
  }
  if (scores.size === 0) return null;
  // Weak words ("schimb", "înlocuire") only break ties between codes the rest already chose.
  for (const word of new Set(words)) {
    for (const concept of concepts(word).filter((c) => WEAK_WORDS.has(c))) {
      for (const e of list) {
        const at = e.words.findIndex((w) => sameStem(w, concept));
        if (at >= 0 && scores.has(e.cod)) scores.set(e.cod, scores.get(e.cod)! + idf(concept) * WEAK_WEIGHT * (at === 0 ? HEAD_WEIGHT : 1));
      }
    }
  }
  const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const [first, second] = ranked as [[string, number], ...Array<[string, number]>];
  const margin = first[1] / (first[1] + (second?.[1] ?? 0));
  // A word the vocabulary does not know may be what the operation is really about.
  const coverage = understood / counted;
  return { cod_prestatie: first[0], denumire: nomenclator.get(first[0]) ?? '', scor: round(margin * coverage), sursa: 'vocabular' };
}

/**
 * The registry code a careful person would pick for a workshop operation called `name`:
 * the name or code itself when it is a registry code; else the code of the account's own
 * most similar example; else the code whose nomenclator name shares most of the name's
 * trade concepts (TRADE_VOCABULARY). With how sure it is and whether a form preselects it.
 */
export function suggestCode(name: string, nomenclator: ReadonlyMap<string, string>, options: SuggestOptions = {}): Suggestion | null {
  const words = nameWords(name);
  const found =
    exactCode([name, options.code], nomenclator) ??
    (words.length === 0 ? null : (fromExamples(name, words, options.examples ?? [], nomenclator) ?? fromVocabulary(name, words, nomenclator)));
  if (!found) return null;
  return { ...found, grav: isSerious(found.cod_prestatie), preselect: preselects(found, name) };
}
