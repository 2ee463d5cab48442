import { describe, expect, it } from 'vitest';
import { parseTypedDate } from '../../src/domain/dates';
import { allowsCorrection } from '../../src/domain/statuses';
import { fieldLabel, withFieldLabels } from '../../src/web/ui/field-labels';

describe('parseTypedDate', () => {
  it('reads dates as the screens show them and as ISO', () => {
    expect(parseTypedDate('14.03.2025')).toBe('2025-03-14');
    expect(parseTypedDate(' 2.3.2025 ')).toBe('2025-03-02');
    expect(parseTypedDate('2025-03-14')).toBe('2025-03-14');
    expect(parseTypedDate('29.02.2024')).toBe('2024-02-29');
  });
  it('refuses days that do not exist and other shapes', () => {
    for (const bad of ['31.02.2025', '29.02.2025', '2025-13-01', '00.01.2025', '14.03.25', '14/03/2025', '2025-3-14', '', 'azi', '14.03.2025 10:00']) {
      expect(parseTypedDate(bad), bad).toBeNull();
    }
  });
});

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
