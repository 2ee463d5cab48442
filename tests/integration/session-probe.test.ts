import { describe, expect, it } from 'vitest';
import type { Sql } from '../../db/client';
import { keepsSessions } from '../../db/session-probe';
import { assertKeepsSessions } from '../../src/database';
import { useTestDatabase } from '../helpers/db';

// The worker and the stagers LISTEN (a session's state), so a DATABASE_URL through
// a pooler in transaction mode (PgBouncer pool_mode=transaction) is refused at start. PgBouncer
// is not installed here: a fake pooler hands its server connections around as PgBouncer does
// (the one freed last first, or the one idle longest), and PostgreSQL itself must pass.

const handle = useTestDatabase('all');

/**
 * Client connections over a few server connections (backend pids): outside a transaction each
 * statement takes an idle one and frees it at once; BEGIN keeps one until COMMIT. `session`:
 * each client keeps the first it got, as a session pooler does.
 */
function fakePooler(order: 'last-freed' | 'longest-idle' | 'session'): Pick<Sql, 'reserve'> {
  const idle = [101, 102, 103];
  const take = () => (order === 'last-freed' ? idle.pop() : idle.shift())!;
  const reserve = async () => {
    let pinned: number | undefined = order === 'session' ? take() : undefined;
    const run = async (query: string) => {
      if (query === 'BEGIN') pinned ??= take();
      else if (query === 'COMMIT') {
        if (order !== 'session') {
          idle.push(pinned!);
          pinned = undefined;
        }
      } else {
        const pid = pinned ?? take();
        if (pinned === undefined) idle.push(pid);
        return [{ pid }];
      }
      return [];
    };
    return { unsafe: run, release: () => {} };
  };
  return { reserve } as unknown as Pick<Sql, 'reserve'>;
}

describe('the session probe', () => {
  it('passes PostgreSQL itself, and a pooler in session mode', async () => {
    expect(await keepsSessions(handle.sql)).toBe(true);
    expect(await keepsSessions(fakePooler('session'))).toBe(true);
  });

  it('catches a pooler in transaction mode, whichever idle connection it hands out first', async () => {
    expect(await keepsSessions(fakePooler('last-freed'))).toBe(false);
    expect(await keepsSessions(fakePooler('longest-idle'))).toBe(false);
  });

  it('stops the start with a message naming DATABASE_URL and what to give instead', async () => {
    await expect(assertKeepsSessions(fakePooler('last-freed'))).rejects.toThrow(
      /DATABASE_URL: its connections do not keep their session \(a pooler in transaction mode, such as PgBouncer with pool_mode=transaction\?\).*PostgreSQL directly or a pooler in session mode/,
    );
    await expect(assertKeepsSessions(handle.sql)).resolves.toBeUndefined();
  });
});
