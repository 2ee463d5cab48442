import { describe, expect, it } from 'vitest';
import { FALLBACK_NOMENCLATOR } from '../../db/fallback-nomenclator';
import { canonicalize } from '../../src/domain/canonical';
import { classify } from '../../src/domain/classify';
import { resolvePrestatii, type ResolutionContext } from '../../src/domain/resolve';
import { suggestCode } from '../../src/domain/suggest';

const nomenclator = new Map(FALLBACK_NOMENCLATOR.map((n) => [n.cod, n.denumire]));
const ctx = (over: Partial<ResolutionContext> = {}): ResolutionContext => ({ nomenclator, mappings: new Map(), textRules: [], ...over });
const items = (...list: object[]) => canonicalize({ vin: '', nrInm: '', dataPrestatie: '', odometruFinal: 1, prestatii: list as never }).prestatii;

describe('resolvePrestatii precedence', () => {
  it('nomenclator code first, then mapping, then text rule, else unmapped', () => {
    const r = resolvePrestatii(
      items(
        { cod_prestatie: 'oe-3' },
        { cod_op_service: 'REV', denumire: 'x' },
        { cod_op_service: 'FR', denumire: 'Plăcuțe FRÂNĂ față' },
        { cod_op_service: 'ZZZ', denumire: 'nimic' },
      ),
      ctx({ mappings: new Map([['REV', 'OE-3']]), textRules: [{ id: 1, pattern: 'placute frana', cod_prestatie: 'OE-1', priority: 1 }] }),
    );
    expect(r.prestatii.map((p) => `${p.cod_client}>${p.cod_prestatie}:${p.sursa}`)).toEqual(['OE-3>OE-3:nomenclator', 'REV>OE-3:mapare', 'FR>OE-1:regula_text']);
    expect(r.nemapate).toEqual(['ZZZ']);
    expect(r.ruleHits).toEqual([{ rule_id: 1, cod_client: 'FR', cod_prestatie: 'OE-1' }]);
  });

  it('a mapping beats a text rule that would also match', () => {
    const r = resolvePrestatii(
      items({ cod_op_service: 'X1', denumire: 'revizie' }),
      ctx({ mappings: new Map([['X1', 'OE-2']]), textRules: [{ id: 1, pattern: 'revizie', cod_prestatie: 'OE-3', priority: 1 }] }),
    );
    expect(r.prestatii[0]?.cod_prestatie).toBe('OE-2');
    expect(r.ruleHits).toEqual([]);
  });

  it('applies text rules in priority order', () => {
    const rules = [
      { id: 1, pattern: 'revizie', cod_prestatie: 'OE-3', priority: 50 },
      { id: 2, pattern: 'revizie', cod_prestatie: 'OE-2', priority: 10 },
    ];
    expect(resolvePrestatii(items({ cod_op_service: 'A', denumire: 'Revizie anuală' }), ctx({ textRules: rules })).prestatii[0]?.cod_prestatie).toBe('OE-2');
  });

  it('treats a cod_prestatie outside the nomenclator as a workshop code (mappable)', () => {
    expect(resolvePrestatii(items({ cod_prestatie: 'X-99' }), ctx()).nemapate).toEqual(['X-99']);
    expect(resolvePrestatii(items({ cod_prestatie: 'X-99' }), ctx({ mappings: new Map([['X-99', 'OE-4']]) })).prestatii[0]?.cod_prestatie).toBe('OE-4');
  });
});

describe('classify', () => {
  const valid = { vin: 'WDB1234561A654321', nrInm: 'B1', dataPrestatie: '2025-01-10', odometruFinal: 10 };
  const now = new Date('2025-06-01T10:00:00Z');

  it('needs_mapping when a code is unknown; rejected (error + COD_NEMAPAT) when on_unmapped_error', () => {
    const input = { ...valid, prestatii: [{ cod_op_service: 'Q1', denumire: 'x' }] };
    expect(classify(input, ctx(), { rejectUnmapped: false, now })).toMatchObject({ status: 'needs_mapping', nemapate: ['Q1'] });
    const rejected = classify(input, ctx(), { rejectUnmapped: true, now });
    expect(rejected.status).toBe('error');
    expect(rejected.erori[0]?.cod).toBe('COD_NEMAPAT');
    expect(rejected.motiv).toContain('Q1');
  });

  it('needs_data wins over needs_mapping and still lists the unmapped codes', () => {
    const v = classify({ ...valid, vin: 'X', prestatii: [{ cod_op_service: 'Q1', denumire: 'x' }] }, ctx(), { rejectUnmapped: false, now });
    expect(v).toMatchObject({ status: 'needs_data', nemapate: ['Q1'] });
    expect(v.motiv).toMatch(/vin/);
  });
});

describe('suggestCode', () => {
  it('suggests by token-sort similarity without diacritics', () => {
    expect(suggestCode('periodica revizie', nomenclator)?.cod_prestatie).toBe('OE-3');
    expect(suggestCode('Inlocuire sezoniera anvelope', nomenclator)?.cod_prestatie).toBe('OE-8');
    expect(suggestCode('actualizare soft', nomenclator)?.cod_prestatie).toBe('OE-7');
  });
  it('suggests nothing for an empty or unrelated name', () => {
    expect(suggestCode('', nomenclator)).toBeNull();
    expect(suggestCode('zzzz qqqq', nomenclator)).toBeNull();
  });
});

describe('suggestCode: vocabulary, exact codes, examples', () => {
  const cod = (name: string, options = {}) => suggestCode(name, nomenclator, options)?.cod_prestatie ?? null;
  it('reads the trade vocabulary and abbreviations', () => {
    expect(cod('Revizie')).toBe('OE-3');
    expect(cod('Rev. 30000 km')).toBe('OE-3');
    expect(cod('Schimb ulei')).toBe('OE-2');
    expect(cod('Înlocuire filtru aer')).toBe('OE-2');
    expect(cod('Înloc. plăcuțe frână')).toBe('OE-2');
    expect(cod('Montat cauciucuri iarna')).toBe('OE-8');
    expect(cod('Geometrie roti')).toBe('OE-4');
    expect(cod('Reparatie caroserie dupa accident')).toBe('OE-C');
  });
  it('a name or code that is a registry code is that code', () => {
    expect(suggestCode('oe 3', nomenclator)).toMatchObject({ cod_prestatie: 'OE-3', sursa: 'cod' });
    expect(cod('', { code: 'R-ODO' })).toBe('R-ODO');
  });
  it("the account's examples win over the vocabulary", () => {
    expect(cod('Polisare faruri', { examples: [{ text: 'POLISARE-FARURI', cod_prestatie: 'OE-2' }] })).toBe('OE-2');
    expect(cod('Polisare faruri', { examples: [{ text: 'POLISARE-FARURI', cod_prestatie: 'NU-EXISTA' }] })).not.toBe('NU-EXISTA');
  });
});
