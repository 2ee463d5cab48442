import { nameWords } from './name-words';

/**
 * Registry codes that state facts the law cares about: an odometer repaired or replaced, a
 * foreign odometer history, serious damage to steering, brakes, body, chassis, restraint or
 * assistance systems, a rebuild. A record with one of them cannot be taken back and follows
 * the car for life, so such a code is never chosen for a clerk unless the operation's own name
 * speaks of that thing, and a clerk who picks one by hand confirms it once more.
 *
 * Each code lists groups of word stems (normalised: lower case, no diacritics); the name
 * speaks of the thing when every group has a word of the name starting with one of its stems
 * (a stem under 4 letters must be the whole word: "km", not "kmh"…).
 */
const ODOMETER = ['odometr', 'kilometraj', 'kilometr', 'km', 'bord', 'ceasuri'];
const DAMAGE = ['avari', 'accident', 'impact', 'coliziun', 'dauna', 'daune', 'deform', 'lovit', 'lovitur', 'tamponar', 'sinistr', 'grav', 'rupt', 'fisur'];
const STEERING = ['directi', 'servodirect', 'caseta', 'volan'];
const BRAKES = ['fran', 'abs', 'etrier'];
const BODY = ['caroser', 'lonjeron', 'structur', 'pavilion', 'prag', 'stalp'];
const CHASSIS = ['sasiu', 'lonjeron', 'structur', 'cadru'];
const RESTRAINT = ['airbag', 'centur', 'pretension', 'scaun'];
const ASSISTANCE = ['adas', 'radar', 'lidar', 'asistent', 'acc', 'lane'];

export const SERIOUS_CODES: ReadonlyMap<string, ReadonlyArray<readonly string[]>> = new Map([
  ['R-ODO', [ODOMETER]],
  ['I-ODO', [ODOMETER]],
  ['OE-I', [ODOMETER]],
  ['OE-D', [DAMAGE, STEERING]],
  ['OE-F', [DAMAGE, BRAKES]],
  ['OE-C', [DAMAGE, BODY]],
  ['OE-S', [DAMAGE, CHASSIS]],
  // An airbag is only ever replaced after it went off: the word alone speaks of damage.
  ['OE-R', [RESTRAINT, [...DAMAGE, 'airbag', 'declans']]],
  ['OE-A', [ASSISTANCE]],
  ['OE-6', [['reconstru', 'refacere', 'rebuild']]],
]);

export const isSerious = (code: string): boolean => SERIOUS_CODES.has(code);

const hits = (word: string, stem: string) => (stem.length >= 4 ? word.startsWith(stem) : word === stem);

/** Whether the operation's name speaks of what the serious `code` states (true for any other code). */
export function nameJustifies(code: string, name: string): boolean {
  const groups = SERIOUS_CODES.get(code);
  if (!groups) return true;
  const words = nameWords(name);
  return groups.every((group) => words.some((w) => group.some((stem) => hits(w, stem))));
}

/** The warning shown beside a serious code wherever a clerk may choose it. */
export const SERIOUS_WARNING = '⚠ cod cu consecințe legale';
