// Accuracy of the preselected suggestion (src/domain/suggest.ts) on the development set of
// workshop operation names (../shared/data/operatii-exemple.tsv, or SUGGEST_SET=path).
// Prints the accuracy on the whole set and on the held-out half (every other entry), and
// every entry it gets wrong. No database: the fallback nomenclator.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FALLBACK_NOMENCLATOR } from '../db/fallback-nomenclator';
import { suggestCode } from '../src/domain/suggest';

const path = process.env.SUGGEST_SET ?? resolve(import.meta.dirname, '../../../shared/data/operatii-exemple.tsv');
const fallbackPath = '/work/shared/data/operatii-exemple.tsv';
let text: string;
try {
  text = readFileSync(path, 'utf8');
} catch {
  text = readFileSync(fallbackPath, 'utf8');
}
const rows = text
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .slice(1)
  .map((l) => {
    const [name = '', codes = ''] = l.split('\t');
    return {
      name: name.trim(),
      accepted: codes
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean),
    };
  });
const nomenclator = new Map(FALLBACK_NOMENCLATOR.map((n) => [n.cod, n.denumire]));

let right = 0;
let heldRight = 0;
let held = 0;
const wrong: string[] = [];
rows.forEach((r, i) => {
  const s = suggestCode(r.name, nomenclator);
  const ok = !!s && r.accepted.includes(s.cod_prestatie);
  if (ok) right++;
  if (i % 2 === 1) {
    held++;
    if (ok) heldRight++;
  }
  if (!ok) wrong.push(`  ${r.name}  →  ${s ? `${s.cod_prestatie} (${s.scor})` : 'nimic'}; corect: ${r.accepted.join(' sau ')}`);
});
const pct = (a: number, b: number) => `${((100 * a) / Math.max(b, 1)).toFixed(1)} %`;
console.log(`suggest: ${right}/${rows.length} corecte = ${pct(right, rows.length)} (tot setul)`);
console.log(`suggest: ${heldRight}/${held} corecte = ${pct(heldRight, held)} (jumătatea păstrată deoparte: rândurile pare)`);
if (wrong.length) console.log(`greșite:\n${wrong.join('\n')}`);
