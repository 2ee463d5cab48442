import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/crypto/envelope';
import { canonicalize, type CanonicalContent } from '../../src/domain/canonical';
import { isIsoDate, todayInBucharest } from '../../src/domain/dates';
import { createHash } from 'node:crypto';
import { idempotencyKey, idempotencyKeys, legacyIdempotencyKey, stableJson } from '../../src/domain/idempotency';
import { resolvePrestatii, type ResolutionContext } from '../../src/domain/resolve';
import { normalizeText } from '../../src/domain/text';
import { copyText } from '../../src/services/import/facts';

/**
 * Keys computed by the code before the hot path was optimised (commit 8bc0cc8): stored
 * submissions and import rows are looked up by them, so they must never change.
 */
const PINNED: Array<{ name: string; account: number | null; input: object; key: string; legacyKey: string }> = [
  {
    name: 'plain',
    account: 1,
    input: { vin: 'WDB1234561A654321', nrInm: 'B123ABC', dataPrestatie: '2025-03-14', odometruFinal: 154200, prestatii: [{ cod_prestatie: 'OE-3' }] },
    key: 'a9101df86a6562d30542dc27ab2e1c28f084ce7f93ee032aa3203a21c277d9eb',
    legacyKey: '545adbb38841c60acccab45f211f4c0ebf06165b11933c772197b7cd98bfb277',
  },
  {
    name: 'null account, both item kinds, unordered, base64',
    account: null,
    input: {
      vin: ' wdb1234561a654321 ',
      nrInm: 'b 12',
      dataPrestatie: '2025-01-02',
      odometruInitial: '1000.50',
      odometruFinal: '154200.0',
      prestatii: [
        { cod_op_service: 'rev-01', denumire: ' Revizie periodică ' },
        { cod_prestatie: 'R-ODO', denumire: 'Citire' },
        { cod_op_service: 'A', denumire: 'b' },
      ],
      b64Image: 'QUJD\nREVG',
    },
    key: 'fbeef381008957d2f1e1008cbc2999660e47a7b3961ffb69c52663d34ce6379e',
    legacyKey: '2dfaa552cb6537bcc27ad70ff2133d3ad2406d36c1dc2034f88a9d4445918037',
  },
  {
    name: 'escapes and odd values',
    account: 42,
    input: {
      vin: 'X"\\\u0001é',
      nrInm: '',
      dataPrestatie: '14.03.2025',
      odometruInitial: '12 km',
      odometruFinal: '9'.repeat(400),
      prestatii: [
        { cod_op_service: 'Ș\u2028"', denumire: 'tab\there\nnl 😀 \ud800' },
        { cod_op_service: 'Ș\u2028"', denumire: '' },
      ],
      b64Image: 'data:x',
    },
    key: 'e13a7589d416a28225f265315818adea66f5dde732c56b53808eadaa49687f6d',
    legacyKey: 'd831e7298fafb65925cd643d9dbe43b3406ac4b44aae04b8606c2709c57f763d',
  },
  {
    name: 'no items, negative and fractional',
    account: 7,
    input: { vin: 'V', nrInm: 'P', dataPrestatie: '', odometruInitial: -0.5, odometruFinal: -0, prestatii: [] },
    key: '936246697523f561bf618e827e27d53fe05003584d562763aba1c0312f3b7537',
    legacyKey: '2f20c1f54d528c17b234b995e89711833c775a6df23c195932c6091f3cbe687b',
  },
];

describe('idempotency keys are pinned', () => {
  it.each(PINNED)('$name', ({ account, input, key, legacyKey }) => {
    const content = canonicalize(input as Parameters<typeof canonicalize>[0]);
    expect(idempotencyKeys(account, content)).toEqual({ key, legacyKey });
    expect(idempotencyKey(account, content)).toBe(key);
    expect(legacyIdempotencyKey(content)).toBe(legacyKey);
  });

  it('does not depend on the property order of the content (a payload read back from jsonb)', () => {
    const content = canonicalize(PINNED[1]!.input as Parameters<typeof canonicalize>[0]);
    const reordered = Object.fromEntries(Object.entries(content).reverse()) as unknown as CanonicalContent;
    reordered.prestatii = content.prestatii.map((p) => Object.fromEntries(Object.entries(p).reverse()) as typeof p);
    expect(idempotencyKeys(null, reordered)).toEqual({ key: PINNED[1]!.key, legacyKey: PINNED[1]!.legacyKey });
  });
});

describe('the key serialisation', () => {
  // The generic form the keys were defined by: stableJson over the content, items sorted by code|name.
  const reference = (content: CanonicalContent) => {
    const by = (i: CanonicalContent['prestatii'][number]) => `${i.cod_prestatie ?? i.cod_op_service ?? ''}|${i.denumire}`;
    const prestatii = [...content.prestatii].sort((a, b) => (by(a) < by(b) ? -1 : by(a) > by(b) ? 1 : 0));
    return createHash('sha256')
      .update(stableJson({ ...content, prestatii }))
      .digest('hex');
  };
  const pick = <T>(values: readonly T[], n: number) => values[n % values.length]!;
  const texts = ['', 'A', 'b"\\', 'ăîșț', '\u0000\n', '😀', 'x'.repeat(50)];
  const odometers = [null, 0, -0, 1.5, 154200, Number.POSITIVE_INFINITY, 'abc'];

  it('matches the generic stableJson form for varied content', () => {
    for (let n = 0; n < 500; n++) {
      const prestatii = Array.from({ length: n % 5 }, (_, i) =>
        (n + i) % 2 === 0 ? { cod_prestatie: pick(texts, n * 3 + i), denumire: pick(texts, n + i) } : { cod_op_service: pick(texts, n + 2 * i), denumire: pick(texts, n * 7 + i) },
      );
      const content: CanonicalContent = {
        vin: pick(texts, n),
        nrInm: pick(texts, n * 5),
        dataPrestatie: pick(texts, n * 11),
        odometruInitial: pick(odometers, n),
        odometruFinal: pick(odometers, n * 3),
        prestatii,
        b64Image: pick(texts, n * 13),
      };
      expect(legacyIdempotencyKey(content)).toBe(reference(content));
    }
  });

  it('falls back to the generic form for content with other properties', () => {
    const content = { ...canonicalize(PINNED[0]!.input as Parameters<typeof canonicalize>[0]), extra: 1 } as CanonicalContent;
    expect(legacyIdempotencyKey(content)).toBe(reference(content));
    expect(legacyIdempotencyKey(content)).not.toBe(PINNED[0]!.legacyKey);
  });
});

describe('envelope IVs', () => {
  const keyring = createKeyring(Buffer.alloc(32, 7).toString('base64'));

  it('keeps the v1.<keyId>.<iv>.<tag>.<ct> format and never repeats an IV across pool refills', () => {
    const ivs = new Set<string>();
    const count = 4096 * 2 + 10;
    for (let i = 0; i < count; i++) {
      const token = keyring.encrypt(`row ${i}`);
      const [version, id, iv, tag] = token.split('.');
      expect(version).toBe('v1');
      expect(id).toBe(keyring.currentKeyId);
      expect(Buffer.from(iv!, 'base64url')).toHaveLength(12);
      expect(Buffer.from(tag!, 'base64url')).toHaveLength(16);
      ivs.add(iv!);
      expect(keyring.decrypt(token)).toBe(`row ${i}`);
    }
    expect(ivs.size).toBe(count);
  });

  it('decrypts a token written before IVs were pooled', () => {
    const stored = 'v1.4bb06f8e.HzggBD8GLhcmPxN6.hYVABrrSa__o2cFXorkPNA.uR100iRAXJ09fOIVD4KAJDUGLBL0RYef2ubQlIZ7UVr1Dw_zAQ';
    expect(keyring.decrypt(stored)).toBe('{"l":2,"c":["WDB","ăîș",154200.5]}');
  });
});

describe('todayInBucharest', () => {
  it('follows the Bucharest day across midnight and DST, whatever Date came before', () => {
    const at = (iso: string) => todayInBucharest(new Date(iso));
    expect(at('2025-03-14T21:59:59.999Z')).toBe('2025-03-14');
    expect(at('2025-03-14T22:00:00.000Z')).toBe('2025-03-15');
    expect(at('2025-03-14T22:00:00.000Z')).toBe('2025-03-15');
    expect(at('2025-07-14T20:59:59.999Z')).toBe('2025-07-14');
    expect(at('2025-07-14T21:00:00.000Z')).toBe('2025-07-15');
    expect(at('2025-07-14T20:59:59.999Z')).toBe('2025-07-14');
  });

  it('agrees with Intl at every quarter hour of two years (the date is formatted once per UTC hour)', () => {
    const reference = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Bucharest', year: 'numeric', month: '2-digit', day: '2-digit' });
    for (let t = Date.UTC(2024, 11, 1); t < Date.UTC(2026, 11, 1); t += 15 * 60_000) {
      const now = new Date(t);
      expect(todayInBucharest(now), now.toISOString()).toBe(reference.format(now));
    }
  });
});

describe('isIsoDate', () => {
  // The form it replaced: a Date parsed from the text must print back as the same text
  // (and a year from 1 on, as PostgreSQL counts them).
  const reference = (text: string) => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || text.startsWith('0000')) return false;
    const date = new Date(`${text}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
  };
  const pad = (n: number, width: number) => String(n).padStart(width, '0');

  it('agrees with the Date round trip on every day and month of leap, common and edge years', () => {
    for (const year of [0, 1, 4, 100, 1600, 1900, 2000, 2023, 2024, 2025, 2100, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          expect(isIsoDate(text), text).toBe(reference(text));
        }
      }
    }
  });

  it.each(['2025-3-14', '2025-03-14 ', '14.03.2025', '2025-03-14T00:00', '', '２０２５-03-14', '+02025-03-14'])('rejects %j', (text) => {
    expect(isIsoDate(text)).toBe(false);
    expect(reference(text)).toBe(false);
  });
});

describe('normalizeText', () => {
  it.each([
    ['  Revizie   PERIODICĂ ', 'revizie periodica'],
    ['Înlocuire filtru aer', 'inlocuire filtru aer'],
    ['Şurub ţeavă ș ț', 'surub teava s t'],
    ['ASCII\tonly\ntext', 'ascii only text'],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });
});

describe('resolvePrestatii with a reused context', () => {
  const ctx: ResolutionContext = {
    nomenclator: new Map([
      ['OE-1', 'Ulei'],
      ['OE-2', 'Filtru'],
    ]),
    mappings: new Map([['SCH-ULEI', 'OE-1']]),
    textRules: [
      { id: 2, pattern: 'Filtru', cod_prestatie: 'OE-2', priority: 5 },
      { id: 1, pattern: 'FILTRU AER', cod_prestatie: 'OE-1', priority: 5 },
      { id: 3, pattern: 'ulei', cod_prestatie: 'NU-EXISTA', priority: 1 },
    ],
  };
  const items = [
    { cod_op_service: 'SCH-ULEI', denumire: 'Schimb ulei' },
    { cod_op_service: 'FILTRU', denumire: 'Înlocuire filtru aer' },
    { cod_op_service: 'X', denumire: 'ulei' },
    { cod_prestatie: 'OE-2', denumire: '' },
    { cod_prestatie: 'ZZ', denumire: 'filtru' },
    { cod_op_service: 'X', denumire: 'altceva' },
  ];
  const expected = {
    prestatii: [
      { cod_prestatie: 'OE-1', denumire: 'Ulei', cod_client: 'SCH-ULEI', sursa: 'mapare' },
      { cod_prestatie: 'OE-1', denumire: 'Ulei', cod_client: 'FILTRU', sursa: 'regula_text' },
      { cod_prestatie: 'OE-2', denumire: 'Filtru', cod_client: 'OE-2', sursa: 'nomenclator' },
      { cod_prestatie: 'OE-2', denumire: 'Filtru', cod_client: 'ZZ', sursa: 'regula_text' },
    ],
    nemapate: ['X'],
    ruleHits: [
      { rule_id: 1, cod_client: 'FILTRU', cod_prestatie: 'OE-1' },
      { rule_id: 2, cod_client: 'ZZ', cod_prestatie: 'OE-2' },
    ],
  };

  it('gives the same answer on every call, and fresh objects each time', () => {
    const first = resolvePrestatii(items, ctx);
    expect(first).toEqual(expected);
    first.prestatii[0]!.denumire = 'changed by a caller';
    expect(resolvePrestatii(items, ctx)).toEqual(expected);
  });
});

describe('copyText', () => {
  const reference = (value: string) => value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
  it.each(['', 'plain', 'a\\b', 'tab\there', 'line\nbreak\r\n', '\\\t\n\r', 'ăîș 😀'])('%j', (value) => {
    expect(copyText(value)).toBe(reference(value));
  });
});
