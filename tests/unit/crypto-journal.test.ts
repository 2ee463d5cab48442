import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring, DecryptError } from '../../src/crypto/envelope';
import { maskVin, redact, REDACTED } from '../../src/journal/redact';
import { readRegError } from '../../src/errors';

const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');

describe('envelope encryption', () => {
  it('round-trips and never contains the plain text', () => {
    const ring = createKeyring(k1);
    const token = ring.encrypt('parola-secreta');
    expect(token).not.toContain('parola');
    expect(token.split('.')[1]).toBe(ring.currentKeyId);
    expect(ring.decrypt(token)).toBe('parola-secreta');
  });

  it('decrypts with an old key after rotation, and refuses tampering or unknown keys', () => {
    const old = createKeyring(k1).encrypt('x');
    const rotated = createKeyring(k2, [k1]);
    expect(rotated.decrypt(old)).toBe('x');
    expect(() => createKeyring(k2).decrypt(old)).toThrow(DecryptError);
    const parts = rotated.encrypt('abc').split('.');
    parts[4] = Buffer.from('abd').toString('base64url');
    expect(() => rotated.decrypt(parts.join('.'))).toThrow(DecryptError);
    expect(() => rotated.decrypt('garbage')).toThrow(DecryptError);
  });
});

describe('redact', () => {
  it('removes secrets by key, masks VINs and plates, also inside text', () => {
    const out = redact({
      reg_credentials: { username: 'u', password: 'p' },
      password: 'p',
      token: 't',
      authorization: 'Bearer abc',
      b64Image: 'QUJD',
      vin: 'WDB1234561A654321',
      nrInm: 'B123ABC',
      note: 'VIN WDB1234561A654321 key gw_abcdefghijklmnop Bearer xyz.abc',
      nested: [{ parola: 'x' }],
    }) as Record<string, unknown>;
    expect(out).toMatchObject({ reg_credentials: REDACTED, password: REDACTED, token: REDACTED, authorization: REDACTED, b64Image: REDACTED });
    expect(out.vin).toBe('WDB********654321');
    expect(out.nrInm).toBe('B1*****');
    expect(out.note).toBe(`VIN WDB********654321 key ${REDACTED} Bearer ${REDACTED}`);
    expect(out.nested).toEqual([{ parola: REDACTED }]);
    expect(maskVin('WDB1234561A654321')).toHaveLength(17);
  });
});

describe('readRegError', () => {
  it('reads the older plain-string form as the three-level form', () => {
    expect(readRegError('Login refuzat')).toMatchObject({ cod: 'REG_EROARE', cauza: 'Login refuzat', problema: expect.any(String), fix: expect.any(String) });
    expect(readRegError({ cod: 'REG_LOGIN_RESPINS', mesaj: 'bad' })).toMatchObject({ cod: 'REG_LOGIN_RESPINS', cauza: 'bad' });
    expect(readRegError(null)).toBeNull();
  });
});
