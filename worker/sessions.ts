/**
 * A registry login of one account: cached here in memory, and shared with the deployment's
 * other workers encrypted in `registry_sessions` (shared-sessions.ts); never in the journal.
 */
export interface Session {
  token: string;
  expiresAt: number;
  /** accounts.session_epoch when the login was made; a reactivation moves it and retires the session. */
  epoch: number;
  /**
   * The login's bookkeeping in the database (ephemeral credentials erased, login time
   * recorded), run beside the first sends; their outcomes are recorded after it.
   */
  bookkeeping?: Promise<void>;
  /** Its row in registry_sessions, once shared: a refusal of this token deletes that row only. */
  loginId?: string;
}

export interface SessionCache {
  /** The account's session, unless expired or made under another epoch (then it is dropped). */
  get(accountId: number, epoch: number): Session | undefined;
  set(accountId: number, session: Session): void;
  /** Drops the account's session; with `token`, only if it is still that one (a newer login stays). */
  drop(accountId: number, token?: string): void;
  /** Any live session, for tasks that need one login (the nomenclator refresh). */
  any(): Session | undefined;
  /**
   * Runs `login` unless a login of the account is already under way, in which case its
   * result is shared: concurrent sends of one account log in once.
   */
  singleFlight(accountId: number, login: () => Promise<Session>): Promise<Session>;
}

// Renew a little before the registry would refuse the token, not on the refusal.
export const MARGIN_MS = 60_000;

export function createSessionCache(now: () => number = Date.now): SessionCache {
  const sessions = new Map<number, Session>();
  const pending = new Map<number, Promise<Session>>();
  const live = (s: Session) => s.expiresAt - MARGIN_MS > now();

  return {
    get(accountId, epoch) {
      const s = sessions.get(accountId);
      if (!s) return undefined;
      if (s.epoch !== epoch || !live(s)) {
        sessions.delete(accountId);
        return undefined;
      }
      return s;
    },
    set(accountId, session) {
      sessions.set(accountId, session);
    },
    drop(accountId, token) {
      if (token === undefined || sessions.get(accountId)?.token === token) sessions.delete(accountId);
    },
    any() {
      for (const s of sessions.values()) if (live(s)) return s;
      return undefined;
    },
    singleFlight(accountId, login) {
      const running = pending.get(accountId);
      if (running) return running;
      const started = login().finally(() => pending.delete(accountId));
      pending.set(accountId, started);
      return started;
    },
  };
}
