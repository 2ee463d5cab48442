import { describe, expect, it } from 'vitest';
import { createSessionCache } from '../../worker/sessions';

describe('session cache', () => {
  it('keeps a session until shortly before it expires', () => {
    let now = 0;
    const cache = createSessionCache(() => now);
    cache.set(1, { token: 't', expiresAt: 30 * 3600_000, epoch: 0 });
    now = 29 * 3600_000;
    expect(cache.get(1, 0)?.token).toBe('t');
    now = 30 * 3600_000 - 30_000;
    expect(cache.get(1, 0)).toBeUndefined();
  });

  it('drops the session when the account’s epoch moved (a reactivation)', () => {
    const cache = createSessionCache(() => 0);
    cache.set(1, { token: 't', expiresAt: 1e12, epoch: 3 });
    expect(cache.get(1, 4)).toBeUndefined();
    expect(cache.get(1, 3)).toBeUndefined();
  });

  it('drops only the refused token, not a newer login', () => {
    const cache = createSessionCache(() => 0);
    cache.set(1, { token: 'new', expiresAt: 1e12, epoch: 0 });
    cache.drop(1, 'old');
    expect(cache.get(1, 0)?.token).toBe('new');
    cache.drop(1, 'new');
    expect(cache.get(1, 0)).toBeUndefined();
  });

  it('shares one login between concurrent sends of an account', async () => {
    const cache = createSessionCache(() => 0);
    let logins = 0;
    const login = async () => {
      logins += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return { token: `t${logins}`, expiresAt: 1e12, epoch: 0 };
    };
    const sessions = await Promise.all([cache.singleFlight(1, login), cache.singleFlight(1, login), cache.singleFlight(2, login)]);
    expect(logins).toBe(2);
    expect(sessions[0]).toBe(sessions[1]);
  });
});
