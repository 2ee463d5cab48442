// The suggestion (src/domain/suggest.ts) on the development sets of workshop operation names:
// the shared ../shared/data/operatii-exemple.tsv (or SUGGEST_SET=path) and this repository's
// bench/data/operatii-uzura.tsv (everyday wear parts). Prints the accuracy on the whole set and
// on the held-out half (every other entry of each file), the harm (a serious code suggested or
// preselected where the accepted codes do not include it), the share and precision of the
// preselected suggestions at PRESELECT_AT and at other thresholds, and every miss. Then the
// same names as an account with saved mappings sees them: every other name of the sets as an
// example (its first accepted code), plus short workshop codes that read as one word ("REV",
// "SCH"), so an example that outvotes a clear name shows as a loss.
// No database: the fallback nomenclator.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FALLBACK_NOMENCLATOR } from '../db/fallback-nomenclator';
import { isSerious, nameJustifies } from '../src/domain/serious-codes';
import { PRESELECT_AT, suggestCode } from '../src/domain/suggest';

function readSet(path: string, fallbackPath?: string) {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (!fallbackPath) throw error;
    text = readFileSync(fallbackPath, 'utf8');
  }
  return text
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .slice(1)
    .map((l, i) => {
      const [name = '', codes = ''] = l.split('\t');
      const accepted = codes
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean);
      return { name: name.trim(), accepted, heldOut: i % 2 === 1 };
    });
}

const rows = [
  ...readSet(process.env.SUGGEST_SET ?? resolve(import.meta.dirname, '../../../shared/data/operatii-exemple.tsv'), '/work/shared/data/operatii-exemple.tsv'),
  ...readSet(resolve(import.meta.dirname, 'data/operatii-uzura.tsv')),
];
const nomenclator = new Map(FALLBACK_NOMENCLATOR.map((n) => [n.cod, n.denumire]));
const results = rows.map((r) => {
  const s = suggestCode(r.name, nomenclator);
  const right = !!s && r.accepted.includes(s.cod_prestatie);
  // Harm: a serious code offered for a name whose accepted codes do not include it.
  const harm = !!s && isSerious(s.cod_prestatie) && !right;
  return { ...r, s, right, harm };
});

const pct = (a: number, b: number) => `${((100 * a) / Math.max(b, 1)).toFixed(1)} %`;
const count = (f: (r: (typeof results)[number]) => boolean) => results.filter(f).length;
const held = results.filter((r) => r.heldOut);
console.log(
  `suggest: ${count((r) => r.right)}/${results.length} corecte = ${pct(
    count((r) => r.right),
    results.length,
  )} (tot setul)`,
);
console.log(`suggest: ${held.filter((r) => r.right).length}/${held.length} corecte = ${pct(held.filter((r) => r.right).length, held.length)} (jumătatea păstrată deoparte)`);
console.log(`daune: ${count((r) => r.harm)} coduri grave sugerate greșit, ${count((r) => r.harm && !!r.s?.preselect)} preselectate greșit`);

const preselected = results.filter((r) => r.s?.preselect);
const preRight = preselected.filter((r) => r.right).length;
console.log(
  `preselectate la pragul ${PRESELECT_AT}: ${preselected.length}/${results.length} = ${pct(preselected.length, results.length)}; corecte ${preRight}/${preselected.length} = ${pct(preRight, preselected.length)}`,
);
console.log('pragul  preselectate  corecte  greșite');
for (const at of [0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9]) {
  const chosen = results.filter((r) => r.s && r.s.scor >= at && nameJustifies(r.s.cod_prestatie, r.name));
  const ok = chosen.filter((r) => r.right).length;
  console.log(`${at.toFixed(2).padStart(6)}  ${String(chosen.length).padStart(12)}  ${String(ok).padStart(7)}  ${String(chosen.length - ok).padStart(7)}`);
}
const misses = results.filter((r) => !r.right || (r.s && !r.s.preselect));
if (misses.length) {
  console.log('greșite sau nepreselectate:');
  for (const r of misses) {
    const what = r.s ? `${r.s.cod_prestatie} (${r.s.scor}${r.s.preselect ? ', preselectat' : ''})` : 'nimic';
    console.log(`  ${r.right ? '✓' : '✗'} ${r.name}  →  ${what}; corect: ${r.accepted.join(' sau ')}`);
  }
}

// An account's saved mappings: the other names, and codes that abbreviate one word of a name.
const SHORT_CODES = [
  { text: 'REV', cod_prestatie: 'OE-2' },
  { text: 'SCH', cod_prestatie: 'OE-1' },
  { text: 'REP', cod_prestatie: 'OE-2' },
  { text: 'INL', cod_prestatie: 'OE-1' },
];
const withExamples = rows.map((r) => {
  const examples = [...rows.filter((o) => o !== r && o.accepted[0]).map((o) => ({ text: o.name, cod_prestatie: o.accepted[0]! })), ...SHORT_CODES];
  const s = suggestCode(r.name, nomenclator, { examples });
  return { ...r, s, right: !!s && r.accepted.includes(s.cod_prestatie) };
});
const exRight = withExamples.filter((r) => r.right).length;
const exPre = withExamples.filter((r) => r.s?.preselect);
console.log(
  `cu exemplele contului: ${exRight}/${withExamples.length} corecte = ${pct(exRight, withExamples.length)}; preselectate ${exPre.length}, corecte ${exPre.filter((r) => r.right).length}`,
);
for (const r of withExamples.filter((x) => !x.right)) {
  const like = r.s?.asemanator_cu ? ` „${r.s.asemanator_cu}”` : '';
  const what = r.s ? `${r.s.cod_prestatie} (${r.s.scor}, ${r.s.sursa}${like}${r.s.preselect ? ', preselectat' : ''})` : 'nimic';
  console.log(`  ✗ ${r.name}  →  ${what}; corect: ${r.accepted.join(' sau ')}`);
}
