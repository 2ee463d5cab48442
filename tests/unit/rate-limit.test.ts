import { describe, expect, it } from 'vitest';
import { createWindowCounter } from '../../src/http/rate-limit';

describe('window counter', () => {
  it('counts per key within a window, reports the previous window once, and says when the window ends', () => {
    let now = 1_000_000;
    const counter = createWindowCounter({ windowMs: 60_000, now: () => now });
    expect(counter.hit('a')).toEqual({ count: 1, previous: 0, retryAfterS: 60 });
    now += 15_000;
    expect(counter.hit('a')).toEqual({ count: 2, previous: 0, retryAfterS: 45 });
    expect(counter.hit('b').count).toBe(1);
    now += 50_000;
    expect(counter.hit('a')).toEqual({ count: 1, previous: 2, retryAfterS: 60 });
    expect(counter.hit('a')).toEqual({ count: 2, previous: 0, retryAfterS: 60 });
  });

  it('holds at most maxKeys keys: expired ones go first, then the oldest', () => {
    let now = 0;
    const counter = createWindowCounter({ windowMs: 1_000_000, maxKeys: 100, now: () => now });
    for (let i = 0; i < 10_000; i++) {
      counter.hit(`k${i}`);
      now += 1;
    }
    // The newest keys are kept (a second hit counts 2); the oldest were dropped (a first hit again).
    expect(counter.hit('k9999').count).toBe(2);
    expect(counter.hit('k9950').count).toBe(2);
    expect(counter.hit('k0').count).toBe(1);
    expect(counter.hit('k5000').count).toBe(1);
  });
});
