import { describe, expect, it } from 'vitest';
import { allowsCorrection } from '../../src/domain/statuses';
import { fieldLabel, withFieldLabels } from '../../src/web/ui/field-labels';

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
