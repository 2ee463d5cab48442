import { describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/errors';
import { ERROR_CAUSE_LABEL, errorCauseLabel, isErrorCause } from '../../src/domain/error-causes';
import { isToResolve } from '../../src/domain/statuses';
import { canonicalTerm, escapeLike } from '../../src/services/submissions/dashboard';
import { countOf } from '../../src/web/ui/format';
import { queryString, SubmissionsQuery } from '../../src/web/trimiteri/query';

describe('the Trimiteri list’s pure rules', () => {
  it('"De rezolvat": the held states, and a queued row only while it waits for credentials', () => {
    expect(isToResolve('error', null)).toBe(true);
    expect(isToResolve('needs_data', null)).toBe(true);
    expect(isToResolve('queued', 'REG_CREDENTIALE_LIPSA')).toBe(true);
    expect(isToResolve('queued', 'REG_RETEA')).toBe(false);
    expect(isToResolve('queued', null)).toBe(false);
    expect(isToResolve('sent', 'REG_CREDENTIALE_LIPSA')).toBe(false);
  });

  it('every cause label names a code of the catalog; an unknown code is shown as itself', () => {
    for (const cod of Object.keys(ERROR_CAUSE_LABEL)) expect(Object.hasOwn(CATALOG, cod), cod).toBe(true);
    expect(isErrorCause('toString')).toBe(false);
    expect(errorCauseLabel('REG_VECHI')).toBe('REG_VECHI');
  });

  it('a search term: canonical like the stored columns, LIKE characters escaped', () => {
    expect(canonicalTerm(' b-12 3 abc ')).toBe('B123ABC');
    expect(escapeLike('5%_a\\b')).toBe('5\\%\\_a\\\\b');
  });

  it('counts in Romanian: "o trimitere", "15 trimiteri", "20 de trimiteri", "101 trimiteri", "5.000 de trimiteri"', () => {
    const t = (n: number) => countOf(n, 'o trimitere', 'trimiteri');
    expect([t(1), t(2), t(15), t(19), t(20), t(101), t(119), t(120), t(5000)]).toEqual([
      'o trimitere',
      '2 trimiteri',
      '15 trimiteri',
      '19 trimiteri',
      '20 de trimiteri',
      '101 trimiteri',
      '119 trimiteri',
      '120 de trimiteri',
      '5.000 de trimiteri',
    ]);
  });

  it('the URL keeps the filters, the cause and the cursor; defaults are left out', () => {
    const q = SubmissionsQuery.parse({ vedere: 'error', cauza: 'REG_LOGIN_RESPINS', inainte: '40' });
    expect(queryString(q)).toBe('?vedere=error&cauza=REG_LOGIN_RESPINS&inainte=40');
    expect(queryString(SubmissionsQuery.parse({}))).toBe('');
    expect(SubmissionsQuery.safeParse({ cauza: 'constructor' }).success).toBe(false);
  });
});
