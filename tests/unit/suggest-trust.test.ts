import { describe, expect, it } from 'vitest';
import { FALLBACK_NOMENCLATOR } from '../../db/fallback-nomenclator';
import { isSerious, nameJustifies, SERIOUS_CODES } from '../../src/domain/serious-codes';
import { PRESELECT_AT, preselects, suggestCode } from '../../src/domain/suggest';

const nomenclator = new Map(FALLBACK_NOMENCLATOR.map((n) => [n.cod, n.denumire]));

describe('serious codes', () => {
  it('are the codes of the nomenclator the issue names, no more', () => {
    expect([...SERIOUS_CODES.keys()].sort()).toEqual(['I-ODO', 'OE-6', 'OE-A', 'OE-C', 'OE-D', 'OE-F', 'OE-I', 'OE-R', 'OE-S', 'R-ODO']);
    for (const code of SERIOUS_CODES.keys()) expect(nomenclator.has(code)).toBe(true);
    expect(isSerious('OE-2')).toBe(false);
  });

  it('wear parts are never given a serious code (the reported cases, and their like)', () => {
    for (const name of ['Schimb lamele ștergătoare', 'Înlocuire bec far', 'Înlocuire pivot', 'Schimb lichid frână', 'Înlocuire senzor ABS', 'Schimb termostat', 'Înlocuire']) {
      const s = suggestCode(name, nomenclator);
      expect(s === null || !isSerious(s.cod_prestatie), name).toBe(true);
    }
  });

  it('a serious code is justified only by the words of its own thing', () => {
    expect(nameJustifies('I-ODO', 'Înlocuire bord (ceasuri)')).toBe(true);
    expect(nameJustifies('R-ODO', 'Corecție kilometraj')).toBe(true);
    expect(nameJustifies('I-ODO', 'Înlocuire bec far')).toBe(false);
    expect(nameJustifies('OE-F', 'Schimb plăcuțe frână')).toBe(false);
    expect(nameJustifies('OE-F', 'Reparație frâne după accident')).toBe(true);
    expect(nameJustifies('OE-R', 'Înlocuire airbag șofer')).toBe(true);
    expect(nameJustifies('OE-R', 'Verificare centuri')).toBe(false);
    expect(nameJustifies('OE-2', 'orice')).toBe(true);
  });

  it('a name that speaks of the thing still gets the serious code', () => {
    expect(suggestCode('Reparație odometru', nomenclator)?.cod_prestatie).toBe('R-ODO');
    expect(suggestCode('Reparație servodirecție avariată', nomenclator)).toMatchObject({ cod_prestatie: 'OE-D', grav: true });
  });
});

describe('preselection', () => {
  it('only at PRESELECT_AT or above, and a serious code only when the name speaks of it', () => {
    expect(preselects({ cod_prestatie: 'OE-2', scor: PRESELECT_AT }, 'x')).toBe(true);
    expect(preselects({ cod_prestatie: 'OE-2', scor: PRESELECT_AT - 0.01 }, 'x')).toBe(false);
    expect(preselects({ cod_prestatie: 'I-ODO', scor: 1 }, 'Schimb lamele')).toBe(false);
    expect(preselects({ cod_prestatie: 'I-ODO', scor: 1 }, 'Schimb bord')).toBe(true);
  });

  it('a half-known name is suggested but not preselected; a clear one is preselected', () => {
    expect(suggestCode('Polish faruri', nomenclator)).toMatchObject({ preselect: false });
    expect(suggestCode('Revizie periodică', nomenclator)).toMatchObject({ cod_prestatie: 'OE-3', preselect: true });
  });

  it('an exact registry code of a serious thing is suggested, not preselected, unless the name says it', () => {
    expect(suggestCode('iodo', nomenclator)).toMatchObject({ cod_prestatie: 'I-ODO', sursa: 'cod', grav: true, preselect: false });
  });

  it("an account's example with a serious code is not carried to a name that does not speak of it", () => {
    const examples = [{ text: 'SCHIMB LAMELE', cod_prestatie: 'I-ODO' }];
    expect(suggestCode('Schimb lamele față', nomenclator, { examples })?.cod_prestatie).not.toBe('I-ODO');
    const ok = [{ text: 'SCHIMB BORD', cod_prestatie: 'I-ODO' }];
    expect(suggestCode('Schimb bord Logan', nomenclator, { examples: ok })).toMatchObject({ cod_prestatie: 'I-ODO', sursa: 'exemplu', asemanator_cu: 'SCHIMB BORD' });
  });
});
