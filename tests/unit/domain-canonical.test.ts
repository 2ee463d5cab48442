import { describe, expect, it } from 'vitest';
import { canonicalize, canonicalOdometer } from '../../src/domain/canonical';
import { idempotencyKey, legacyIdempotencyKey } from '../../src/domain/idempotency';

const base = { vin: 'WDB1234561A654321', nrInm: 'B123ABC', dataPrestatie: '2025-03-14', odometruFinal: 154200, prestatii: [{ cod_prestatie: 'OE-3' }] };

describe('canonicalOdometer', () => {
  it.each([
    [154200, 154200],
    ['154200', 154200],
    ['154200.0', 154200],
    [' 154200.00 ', 154200],
    ['154200.50', 154200.5],
    ['', null],
    [null, null],
    [undefined, null],
    ['12 km', '12 km'],
    ['1e5', '1e5'],
  ])('%j → %j', (input, expected) => {
    expect(canonicalOdometer(input as number | string | null | undefined)).toBe(expected);
  });
});

describe('canonicalize', () => {
  it('trims and upper-cases VIN, plate and codes; trims the date and names; drops whitespace in base64', () => {
    const c = canonicalize({
      ...base,
      vin: ' wdb1234561a654321 ',
      nrInm: ' b123abc',
      dataPrestatie: ' 2025-03-14 ',
      prestatii: [{ cod_op_service: ' rev-01 ', denumire: ' Revizie ' }, { cod_prestatie: 'oe-3' }],
      b64Image: 'QUJD\nREVG',
    });
    expect(c).toEqual({
      vin: 'WDB1234561A654321',
      nrInm: 'B123ABC',
      dataPrestatie: '2025-03-14',
      odometruInitial: null,
      odometruFinal: 154200,
      prestatii: [
        { cod_op_service: 'REV-01', denumire: 'Revizie' },
        { cod_prestatie: 'OE-3', denumire: '' },
      ],
      b64Image: 'QUJDREVG',
    });
  });
});

describe('idempotency key', () => {
  const key = (over: object, account: number | null = 1) => idempotencyKey(account, canonicalize({ ...base, ...over }));

  it('is the same for spreadsheet floats, strings and integers', () => {
    expect(key({ odometruFinal: '154200.0' })).toBe(key({ odometruFinal: 154200 }));
    expect(key({ vin: 'wdb1234561a654321' })).toBe(key({}));
  });

  it('treats a NULL account as account 1, and separates other accounts', () => {
    expect(key({}, null)).toBe(key({}, 1));
    expect(key({}, 2)).not.toBe(key({}, 1));
  });

  it('ignores item order but not item content', () => {
    const a = { prestatii: [{ cod_prestatie: 'OE-3' }, { cod_prestatie: 'OE-1' }] };
    const b = { prestatii: [{ cod_prestatie: 'OE-1' }, { cod_prestatie: 'OE-3' }] };
    expect(key(a)).toBe(key(b));
    expect(key({ prestatii: [{ cod_prestatie: 'OE-2' }] })).not.toBe(key({}));
    expect(key({ odometruFinal: 154201 })).not.toBe(key({}));
  });

  it('has an older form without the account, distinct from the current one', () => {
    const content = canonicalize(base);
    expect(legacyIdempotencyKey(content)).not.toBe(idempotencyKey(1, content));
    expect(legacyIdempotencyKey(content)).toBe(legacyIdempotencyKey(canonicalize({ ...base, odometruFinal: '154200.0' })));
  });
});
