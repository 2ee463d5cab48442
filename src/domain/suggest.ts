import { CmpStr } from 'cmpstr';
import { tokenSort } from './text';

const cmp = CmpStr.create().setMetric('levenshtein');

export interface Suggestion {
  cod_prestatie: string;
  denumire: string;
  scor: number;
}

/**
 * The registry code whose name is most like `name`: token-sort similarity over names
 * normalised without diacritics. Below `threshold` nothing is suggested.
 */
export function suggestCode(
  name: string,
  nomenclator: ReadonlyMap<string, string>,
  threshold = 0.35,
): Suggestion | null {
  const target = tokenSort(name);
  if (!target) return null;
  let best: Suggestion | null = null;
  for (const [cod, denumire] of nomenclator) {
    const scor = cmp.compare(tokenSort(denumire), target) as number;
    if (!best || scor > best.scor) best = { cod_prestatie: cod, denumire, scor: Math.round(scor * 1000) / 1000 };
  }
  return best && best.scor >= threshold ? best : null;
}
