import { nameWords } from './name-words';
import { isSerious, nameJustifies } from './serious-codes';
import { normalizeText } from './text';
import { TRADE_VOCABULARY } from './trade-vocabulary';

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
 * 0.5 or less (a tie, or half of the name unknown to the vocabulary, or resting on a word only
 * near the concept), so wrong preselections end above 0.5; 0.6 keeps a margin over them and
 * still preselects two names in three, all right.
 */
export const PRESELECT_AT = 0.6;

/** An example this similar (token overlap) is worth weighing against the vocabulary. */
const EXAMPLE_SIMILARITY = 0.5;
/** The first word of a registry name that says what (not how) says what kind of operation it is. */
const HEAD_WEIGHT = 2;
/** A `how` word ("schimb", "verificare") only breaks ties. */
const HOW_WEIGHT = 0.3;
/** A `near` word ("roți" beside "anvelope") is half the evidence of a word that names the thing. */
const NEAR_WEIGHT = 0.5;
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

interface Reading {
  /** Concept word → how strongly the word stands for it (1 names it, NEAR_WEIGHT is beside it). */
  concepts: Map<string, number>;
  /** Every key the word matched says how, not what. */
  how: boolean;
}

/** The nomenclator's concept words a name's word stands for (vocabulary, else the word itself). */
function read(word: string): Reading {
  const concepts = new Map<string, number>();
  let how = true;
  let matched = false;
  for (const [key, targets, tie = 'names'] of TRADE_VOCABULARY) {
    if (key.length >= 4 ? !word.startsWith(key) : word !== key) continue;
    matched = true;
    if (tie !== 'how') how = false;
    const strength = tie === 'near' ? NEAR_WEIGHT : 1;
    for (const t of targets) concepts.set(t, Math.max(concepts.get(t) ?? 0, strength));
  }
  if (!matched) {
    how = false;
    if (word.length >= 4) concepts.set(word, 1);
  }
  return { concepts, how };
}

interface Entry {
  cod: string;
  denumire: string;
  words: string[];
  /** Index of the first word that says what rather than how ("sezonieră" in "înlocuire sezonieră…"). */
  head: number;
}

const entryCache = new WeakMap<ReadonlyMap<string, string>, Entry[]>();
function entries(nomenclator: ReadonlyMap<string, string>): Entry[] {
  let list = entryCache.get(nomenclator);
  if (!list) {
    list = [...nomenclator].map(([cod, denumire]) => {
      const words = nameWords(denumire);
      const what = words.findIndex((w) => !read(w).how);
      return { cod, denumire, words, head: what < 0 ? 0 : what };
    });
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

/**
 * A name that is word for word a registry name ("Revizie periodică") is that code, whatever
 * else resembles it: the registry itself calls the operation so.
 */
function exactName(words: string[], nomenclator: ReadonlyMap<string, string>): Found | null {
  const covers = (a: string[], b: string[]) => a.every((x) => b.some((y) => sameStem(x, y)));
  for (const e of entries(nomenclator)) {
    if (e.words.length > 0 && covers(words, e.words) && covers(e.words, words)) {
      return { cod_prestatie: e.cod, denumire: e.denumire, scor: 1, sursa: 'vocabular' };
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
 * Scores every code by the name's trade concepts found in its nomenclator name: rarer words
 * count more, the registry name's head word double, a `near` word half (several words of the
 * name agreeing on one concept add up). A code needs a word that says what: "schimb" or
 * "verificare" alone says nothing of what was done, and only breaks ties. A serious code the
 * name does not speak of is out of the running, so it is never the top pick by accident.
 *
 * The confidence is the winner's share of the two best scores (how clearly it wins) times the
 * share of the name's words the vocabulary understood (a name half unknown is half a guess; a
 * word only beside a concept is half understood).
 */
function fromVocabulary(name: string, words: string[], nomenclator: ReadonlyMap<string, string>): Found | null {
  const list = entries(nomenclator);
  const total = list.length;
  // Rarer nomenclator words tell codes apart better (inverse document frequency).
  const idf = (concept: string) => {
    const df = list.filter((e) => e.words.some((w) => sameStem(w, concept))).length;
    return df === 0 ? 0 : Math.log((total + 1) / df);
  };
  const readings = [...new Set(words)].map(read);
  const what = readings.filter((r) => !r.how);
  const scores = new Map<string, number>();
  const add = (r: Reading, weight: number, only: ReadonlySet<string> | null) => {
    for (const [concept, strength] of r.concepts) {
      const rarity = idf(concept);
      if (rarity === 0) continue;
      for (const e of list) {
        if (only && !only.has(e.cod)) continue;
        const at = e.words.findIndex((w) => sameStem(w, concept));
        if (at < 0 || !nameJustifies(e.cod, name)) continue;
        scores.set(e.cod, (scores.get(e.cod) ?? 0) + rarity * strength * weight * (at === e.head ? HEAD_WEIGHT : 1));
      }
    }
  };
  for (const r of what) add(r, 1, null);
  if (scores.size === 0) return null;
  // How words ("schimb", "verificare") only break ties between codes the rest already chose.
  const chosen = new Set(scores.keys());
  for (const r of readings) if (r.how) add(r, HOW_WEIGHT, chosen);
  const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const [first, second] = ranked as [[string, number], ...Array<[string, number]>];
  const margin = first[1] / (first[1] + (second?.[1] ?? 0));
  // A word the vocabulary does not know may be what the operation is really about.
  let understood = 0;
  for (const r of what) {
    let best = 0;
    for (const [concept, s] of r.concepts) if (s > best && idf(concept) > 0) best = s;
    understood += best;
  }
  const coverage = understood / what.length;
  return { cod_prestatie: first[0], denumire: nomenclator.get(first[0]) ?? '', scor: round(margin * coverage), sursa: 'vocabular' };
}

/**
 * The account's closest example against the vocabulary's reading. The account's own choice
 * stands when it is at least as sure as the vocabulary (its habit wins a tie), so a saved code
 * that shares one word with the name ("REV" read as "revizie") cannot outvote a name the
 * vocabulary reads clearly; when both point at the same code, the surer of the two says how sure.
 */
function weigh(example: Found | null, vocabulary: Found | null): Found | null {
  if (!example || !vocabulary) return example ?? vocabulary;
  if (example.cod_prestatie === vocabulary.cod_prestatie) return { ...example, scor: Math.max(example.scor, vocabulary.scor) };
  return example.scor >= vocabulary.scor ? example : vocabulary;
}

/**
 * The registry code a careful person would pick for a workshop operation called `name`:
 * the name or code itself when it is a registry code or a registry name; else the account's
 * own most similar example or the code whose nomenclator name shares most of the name's trade
 * concepts (TRADE_VOCABULARY), whichever is surer. With how sure it is and whether a form preselects it.
 */
export function suggestCode(name: string, nomenclator: ReadonlyMap<string, string>, options: SuggestOptions = {}): Suggestion | null {
  const words = nameWords(name);
  const found =
    exactCode([name, options.code], nomenclator) ??
    (words.length === 0
      ? null
      : (exactName(words, nomenclator) ?? weigh(fromExamples(name, words, options.examples ?? [], nomenclator), fromVocabulary(name, words, nomenclator))));
  if (!found) return null;
  return { ...found, grav: isSerious(found.cod_prestatie), preselect: preselects(found, name) };
}
