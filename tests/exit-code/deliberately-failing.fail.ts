import { expect, it } from 'vitest';

it('fails on purpose', () => {
  expect(1 + 1).toBe(3);
});
