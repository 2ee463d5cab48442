import { describe, expect, it } from 'vitest';
import { allowsCorrection } from '../../src/domain/statuses';
import { CATALOG } from '../../src/errors';
import { fieldLabel, inClerkWords, withFieldLabels } from '../../src/web/ui/field-labels';

describe('allowsCorrection', () => {
  it('needs_data, and an error whose cause is its content; no other error, no other state', () => {
    expect(allowsCorrection({ status: 'needs_data', regErrorCod: null })).toBe(true);
    expect(allowsCorrection({ status: 'error', regErrorCod: 'REG_CONTINUT_RESPINS' })).toBe(true);
    expect(allowsCorrection({ status: 'error', regErrorCod: 'REG_LOGIN_RESPINS' })).toBe(false);
    expect(allowsCorrection({ status: 'error', regErrorCod: null })).toBe(false);
    expect(allowsCorrection({ status: 'queued', regErrorCod: 'REG_CONTINUT_RESPINS' })).toBe(false);
    expect(allowsCorrection({ status: 'sent', regErrorCod: 'REG_CONTINUT_RESPINS' })).toBe(false);
  });
});

describe('field labels', () => {
  it('names fields as the clerk knows them, in labels and in messages', () => {
    expect(fieldLabel('vin')).toBe('Seria de șasiu (VIN)');
    expect(fieldLabel('prestatii.1')).toBe('Operația 2');
    expect(fieldLabel('necunoscut')).toBe('necunoscut');
    expect(withFieldLabels('odometruInitial trebuie să fie cel mult odometruFinal')).toBe('„Odometru inițial (km)” trebuie să fie cel mult „Odometru final (km)”');
    expect(withFieldLabels('un vin bun')).toBe('un vin bun');
  });
});

// Issue 31: what the dashboard shows of the catalog (every notice, every row's error) says no
// API field, key or date form. Only the refusals of a program's call keep their header and
// endpoint: a signed-in screen never meets them.
const API_ONLY = new Set(['NEAUTENTIFICAT', 'TIP_CORP_NESUPORTAT']);
const API_WORDS =
  /\b(nrInm|dataPrestatie|odometruInitial|odometruFinal|prestatii|b64Image|cod_prestatie|cod_op_service|denumire_op|n_to_commit|n_confirmed|rows_hash|batch_id|reg_credentials|request_id|Retry-After)\b|\/v1\/|AAAA-LL-ZZ|\b\d{4}-\d{2}-\d{2}\b/g;

describe('the catalog in the clerk’s words', () => {
  it('every problem and fix the screens show names no API field, key, endpoint or ISO date', () => {
    const left = Object.entries(CATALOG)
      .filter(([cod]) => !API_ONLY.has(cod))
      .flatMap(([cod, e]) => [...inClerkWords(`${e.problema} ${e.fix}`).matchAll(API_WORDS)].map((m) => `${cod}: ${m[0]}`));
    expect(left).toEqual([]);
  });

  it('a cause built from a value speaks the same way: a field by its label, a date as zz.ll.aaaa', () => {
    expect(inClerkWords('Câmpul odometruFinal lipsește.')).toBe('Câmpul „Odometru final (km)” lipsește.');
    expect(inClerkWords('2099-01-01 este după data de azi (2026-11-27).')).toBe('01.01.2099 este după data de azi (27.11.2026).');
    expect(inClerkWords('Ați confirmat 3 rânduri (n_to_commit)')).toBe('Ați confirmat 3 rânduri');
  });
});
