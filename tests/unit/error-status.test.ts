import { describe, expect, it } from 'vitest';
import { AppError, CATALOG, NotFoundError, REQUEST_ERROR_CODES } from '../../src/errors';
import { errorBody } from '../../src/http/envelope';
import { codeToStatus, statusOf } from '../../src/http/status';

describe('the status of an error code', () => {
  it('every code a request can fail with has one error status, and no other code has one', () => {
    for (const cod of REQUEST_ERROR_CODES) {
      expect(statusOf(cod), cod).toBeGreaterThanOrEqual(400);
      expect(statusOf(cod), cod).toBeLessThan(600);
    }
    expect(Object.keys(codeToStatus).sort()).toEqual([...REQUEST_ERROR_CODES].sort());
    const submissionCodes = Object.keys(CATALOG).filter((cod) => !(REQUEST_ERROR_CODES as string[]).includes(cod));
    expect(submissionCodes).toContain('COD_NEMAPAT');
    expect(submissionCodes).toContain('REG_LOGIN_RESPINS');
    for (const cod of submissionCodes) expect(Object.hasOwn(codeToStatus, cod), cod).toBe(false);
  });

  it('the envelope reads it from the code, and an AppError carries none', () => {
    expect(errorBody('CONFLICT_STARE', 'c', 'r')).toMatchObject({ status: 409, cod: 'CONFLICT_STARE', problema: CATALOG.CONFLICT_STARE.problema });
    expect(errorBody('NEGASIT', 'c', null).status).toBe(404);
    expect(errorBody('IMPORT_INTRERUPT', 'c', null).status).toBe(503);
    expect(new NotFoundError()).not.toHaveProperty('status');
    expect(Object.keys(new AppError('PREA_MARE', 'c'))).not.toContain('status');
  });
});
