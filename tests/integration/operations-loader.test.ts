import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';

// Concurrent lookups share one query, and identical ones one row of it: each caller must still
// get its own account's mappings and rules, whatever else was in the batch.

let t: TestApp;
let a: number;
let b: number;

beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount('Service A');
  b = await t.createAccount('Service B');
  await t.ctx.sql`INSERT INTO operation_mappings (account_id, cod_op_service, cod_prestatie) VALUES (${a}, 'REV', 'OE-3'), (${b}, 'REV', 'OE-1'), (${a}, 'ULEI', 'OE-2')`;
  await t.ctx.sql`INSERT INTO text_rules (account_id, pattern, cod_prestatie, priority) VALUES (${b}, 'frana', 'OE-1', 1)`;
});
afterAll(() => t.close());

describe('the operations loader', () => {
  it('answers each of many concurrent lookups, identical or not, with its own account and codes', async () => {
    const asked = [
      ...Array.from({ length: 10 }, () => ({ accountId: a, codes: ['REV'] })),
      ...Array.from({ length: 10 }, () => ({ accountId: b, codes: ['REV'] })),
      { accountId: a, codes: ['REV', 'ULEI'] },
      { accountId: a, codes: null },
      { accountId: b, codes: ['ULEI'] },
    ];
    const found = await Promise.all(asked.map((l) => t.ctx.lookups(l)));
    const sorted = (m: Array<{ from: string; to: string }>) => [...m].sort((x, y) => x.from.localeCompare(y.from));
    for (const [i, l] of asked.entries()) {
      const { mappings, rules } = found[i]!;
      if (l.accountId === a) {
        expect(rules).toEqual([]);
        if (l.codes?.length === 1) expect(mappings).toEqual([{ from: 'REV', to: 'OE-3' }]);
        else
          expect(sorted(mappings)).toEqual([
            { from: 'REV', to: 'OE-3' },
            { from: 'ULEI', to: 'OE-2' },
          ]);
      } else {
        expect(rules.map((r) => r.pattern)).toEqual(['frana']);
        expect(mappings).toEqual(l.codes?.[0] === 'REV' ? [{ from: 'REV', to: 'OE-1' }] : []);
      }
    }
  });
});
