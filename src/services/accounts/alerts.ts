import { sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client';
import type { Actor, AppContext } from '../../context';
import { CREDENTIAL_WAIT } from '../../domain/statuses';

/** The registry refused the account's last login: when, and the registry's words. */
export interface LoginRefusal {
  at: Date;
  cauza: string;
}

/**
 * What every signed-in page warns about. `waitingForCredentials` counts queued submissions the
 * worker put back for want of credentials; `refusedAtLogin` counts the errors a refused login
 * left (the ones the credentials form offers to requeue).
 */
export interface AccountAlerts {
  hasCredentials: boolean;
  waitingForCredentials: number;
  refusedAtLogin: number;
  /** Null once a later login succeeded, or once new credentials were saved after the refusal. */
  loginRefused: LoginRefusal | null;
}

type Row = {
  has_creds: boolean;
  creds_set_at: Date | string | null;
  waiting: number;
  refused: number;
  login_at: Date | string | null;
  login_data: Record<string, unknown> | null;
};

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/**
 * One statement per page: two counts from submissions_account_reg_cause_idx and the account's
 * last `rar_login` from app_events_account_event_idx. `executor` lets the credentials save read
 * the count it requeues inside its own transaction.
 */
export async function accountAlerts({ ctx, actor, executor = ctx.db }: { ctx: AppContext; actor: Actor; executor?: Executor }): Promise<AccountAlerts> {
  const { accountId } = actor;
  const result = await executor.execute(sql`
    SELECT a.reg_creds_enc IS NOT NULL AS has_creds, a.reg_creds_set_at AS creds_set_at,
      (SELECT count(*)::int FROM submissions WHERE scope_account_id = ${accountId} AND status = ${CREDENTIAL_WAIT.status}
         AND reg_error IS NOT NULL AND reg_error ->> 'cod' = ${CREDENTIAL_WAIT.cod}) AS waiting,
      (SELECT count(*)::int FROM submissions WHERE scope_account_id = ${accountId} AND status = 'error'
         AND reg_error IS NOT NULL AND reg_error ->> 'cod' = 'REG_LOGIN_RESPINS') AS refused,
      login.ts AS login_at, login.data AS login_data
    FROM accounts a
    LEFT JOIN LATERAL (
      SELECT ts, data FROM app_events WHERE account_id = a.id AND event = 'rar_login' ORDER BY id DESC LIMIT 1
    ) login ON true
    WHERE a.id = ${accountId}`);
  const row = (result as unknown as Row[])[0];
  if (!row) return { hasCredentials: false, waitingForCredentials: 0, refusedAtLogin: 0, loginRefused: null };
  return {
    hasCredentials: row.has_creds,
    waitingForCredentials: row.waiting,
    refusedAtLogin: row.refused,
    loginRefused: refusalOf(row),
  };
}

function refusalOf(row: Row): LoginRefusal | null {
  if (!row.login_at || row.login_data?.outcome !== 'rejected') return null;
  const at = asDate(row.login_at);
  // Credentials saved after the refusal have not been tried yet: the banner would blame them.
  if (row.creds_set_at && asDate(row.creds_set_at) > at) return null;
  const status = typeof row.login_data.http_status === 'number' ? `HTTP ${row.login_data.http_status}` : null;
  const said = typeof row.login_data.mesaj_registru === 'string' ? row.login_data.mesaj_registru : null;
  return { at, cauza: [status, said].filter(Boolean).join(': ') || 'autentificare refuzată' };
}
