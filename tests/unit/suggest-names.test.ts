import { describe, expect, it } from 'vitest';
import { FALLBACK_NOMENCLATOR } from '../../db/fallback-nomenclator';
import { PRESELECT_AT, type SuggestionExample, suggestCode } from '../../src/domain/suggest';

const nomenclator = new Map(FALLBACK_NOMENCLATOR.map((n) => [n.cod, n.denumire]));
const suggest = (name: string, examples: SuggestionExample[] = []) => suggestCode(name, nomenclator, { examples });

describe('wheels are not tyres: a word only beside a concept is half the evidence', () => {
  it('"Echilibrare roți" is an adjustment, never a seasonal tyre change, and not a sure thing', () => {
    for (const name of ['Echilibrare roți', 'Echilibrare roti fata']) {
      const s = suggest(name);
      expect(['OE-4', 'OE-2'], name).toContain(s?.cod_prestatie);
      expect(s?.scor, name).toBeLessThan(1);
    }
  });

  it('a name that rests on a wheel word alone is suggested, not preselected', () => {
    for (const name of ['Schimb roți', 'Vulcanizare']) {
      expect(suggest(name), name).toMatchObject({ cod_prestatie: 'OE-8', preselect: false });
      expect(suggest(name)?.scor, name).toBeLessThan(PRESELECT_AT);
    }
  });

  it('the season still makes it the seasonal tyre change', () => {
    expect(suggest('Schimb roți iarnă')).toMatchObject({ cod_prestatie: 'OE-8', preselect: true });
    expect(suggest('Montaj anvelope vară')).toMatchObject({ cod_prestatie: 'OE-8', scor: 1, preselect: true });
    expect(suggest('Echilibrare și montaj roți iarnă')?.cod_prestatie).toBe('OE-8');
  });
});

describe("the account's examples against the vocabulary", () => {
  it('a saved short code that shares one word does not pull "Revizie periodică" off its registry name', () => {
    const s = suggest('Revizie periodică', [{ text: 'REV', cod_prestatie: 'OE-2' }]);
    expect(s).toMatchObject({ cod_prestatie: 'OE-3', preselect: true });
    expect(s?.scor).toBeGreaterThanOrEqual(0.87);
  });

  it('a name that is word for word a registry name is that code, even against an example of the same words', () => {
    expect(suggest('Revizie periodică', [{ text: 'REVIZIE PERIODICA', cod_prestatie: 'OE-2' }])).toMatchObject({ cod_prestatie: 'OE-3', scor: 1 });
    expect(suggest('Reparație odometru')).toMatchObject({ cod_prestatie: 'R-ODO', scor: 1, grav: true, preselect: true });
  });

  it('an unrelated short code does not beat a name the vocabulary reads clearly', () => {
    expect(suggest('Schimb ulei motor', [{ text: 'SCH', cod_prestatie: 'OE-1' }])).toMatchObject({ cod_prestatie: 'OE-2', sursa: 'vocabular', preselect: true });
  });

  it("the account's own name for the same operation still wins: its habit is its choice", () => {
    expect(suggest('Schimb ulei', [{ text: 'SCHIMB ULEI', cod_prestatie: 'OE-1' }])).toMatchObject({ cod_prestatie: 'OE-1', sursa: 'exemplu', asemanator_cu: 'SCHIMB ULEI' });
  });
});

describe('the tachograph and the speed limiter tie to their inspection', () => {
  it('"Verificare tahograf" is AITLV, preselected, however the check is written', () => {
    for (const name of ['Verificare tahograf', 'Verif. tahograf', 'Verificare periodică tahograf', 'Verificare limitator viteză']) {
      const s = suggest(name);
      expect(s, name).toMatchObject({ cod_prestatie: 'AITLV', preselect: true });
      expect(s?.scor, name).toBeGreaterThanOrEqual(0.75);
    }
  });

  it('"verificare" says how, not what: it neither drags a code in nor halves the confidence', () => {
    expect(suggest('Control geometrie')).toMatchObject({ cod_prestatie: 'OE-4', preselect: true });
    expect(suggest('Verificare frâne')).toBeNull();
  });
});
