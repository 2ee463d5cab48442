import type { TransactionSql } from 'postgres';
import type { RegCredentials } from '../src/domain/submission-input';
import type { WorkerContext } from './context';
import type { ResolvedCredentials } from './credentials';
import { refreshNomenclator } from './nomenclator';
import { RegistryHttpError, RegistryNetworkError } from './registry/client';
import type { Session } from './sessions';
import { sharedSession } from './shared-sessions';

/** The answers failures.ts takes for refused credentials (REG_LOGIN_RESPINS): the journal says `rejected` for the same ones. */
const isLoginRefusal = (status: number) => status === 401 || status === 400 || status === 403;

/** Thrown when neither the submission nor the account has usable credentials. */
export class NoCredentialsError extends Error {}

/**
 * Thrown instead of a login with the account's durable credentials once the registry refused
 * them under the account's current session epoch: a real registry locks an account after a
 * few failed logins, so they are not tried again until they change (a save, a removal or a
 * reactivation moves the epoch).
 */
export class CredentialsRefusedError extends Error {}

/**
 * Logs the account in and caches the session. Every login is journalled (`rar_login`,
 * never with credentials or the token). A successful login deletes the ephemeral
 * credentials of every submission of the account (never the account's own) and records the
 * login time for /healthz, beside the sends that waited for it (`Session.bookkeeping`); the
 * account's first one in this process refreshes the nomenclator.
 */
export async function login(ctx: WorkerContext, accountId: number, epoch: number, credentials: RegCredentials, requestId: string | null, signal?: AbortSignal): Promise<Session> {
  const started = ctx.clock().getTime();
  try {
    const { value, latencyMs, status } = await ctx.registry.login(credentials, signal);
    const ttlS = value.expiresIn && value.expiresIn > 0 ? value.expiresIn : ctx.settings.sessionTtlS;
    ctx.journal.write({ event: 'rar_login', requestId, accountId, data: { outcome: 'ok', http_status: status, latency_ms: latencyMs, expires_in_s: ttlS } });
    const bookkeeping = afterLogin(ctx, accountId).catch((error: unknown) => {
      // The login stands; what is left is erased at the next login, at `sent`, or by the purge.
      ctx.journal.write({ event: 'worker_after_login_failed', level: 'warn', accountId, data: { error: String(error) } });
    });
    const session: Session = { token: value.token, expiresAt: started + ttlS * 1000, epoch, bookkeeping };
    ctx.sessions.set(accountId, session);
    if (!ctx.loginRefresh.accounts.has(accountId)) {
      ctx.loginRefresh.accounts.add(accountId);
      // In the background: the sends waiting for this login carry codes resolved already, and
      // would otherwise wait one more registry round trip. The nomenclator is global, so first
      // logins of other accounts while a refresh runs share it instead of asking again.
      ctx.loginRefresh.running ??= refreshNomenclator(ctx, session.token)
        .then(
          () => undefined,
          (error: unknown) => {
            // The fallback codes stay; the daily task tries again.
            ctx.journal.write({ event: 'nomenclator_refresh_failed', level: 'warn', accountId, data: { error: String(error) } });
          },
        )
        .finally(() => {
          ctx.loginRefresh.running = undefined;
        });
    }
    return session;
  } catch (error) {
    const outcome =
      error instanceof RegistryHttpError ? (isLoginRefusal(error.status) ? 'rejected' : 'registry_error') : error instanceof RegistryNetworkError ? 'network_error' : 'failed';
    ctx.journal.write({
      event: 'rar_login',
      level: 'warn',
      requestId,
      accountId,
      data: { outcome, http_status: error instanceof RegistryHttpError ? error.status : null, mesaj_registru: error instanceof RegistryHttpError ? error.mesaj : String(error) },
    });
    throw error;
  }
}

/**
 * Erases the account's ephemeral credentials, wakes its submissions put off for want of
 * credentials (credential-waits.ts: the session serves them now) and records the login time.
 * Rows are locked in id order, as the heartbeat locks them, so the two never deadlock.
 */
async function afterLogin(ctx: WorkerContext, accountId: number): Promise<void> {
  await ctx.sql`
    UPDATE submissions SET reg_creds_enc = NULL WHERE id IN (
      SELECT id FROM submissions WHERE scope_account_id = ${accountId} AND reg_creds_enc IS NOT NULL ORDER BY id FOR UPDATE)`;
  await ctx.sql`
    UPDATE submissions SET next_attempt_at = NULL WHERE id IN (
      SELECT id FROM submissions WHERE scope_account_id = ${accountId} AND status = 'queued' AND next_attempt_at > now()
        AND reg_error IS NOT NULL AND reg_error ->> 'cod' = 'REG_CREDENTIALE_LIPSA' ORDER BY id FOR UPDATE)`;
  await ctx.sql`INSERT INTO worker_state (worker_id, heartbeat_at, last_registry_login) VALUES (${ctx.workerId}, now(), now())
                ON CONFLICT (worker_id) DO UPDATE SET last_registry_login = now(), heartbeat_at = now()`;
}

/**
 * The login of one send, under the account's login lock (shared-sessions.ts): with the
 * account's durable credentials, none if the registry refused them under this epoch, and a
 * refusal is written for the account before the lock is released, so the account's other
 * sends, in this worker or another, wait for new credentials instead of logging in again.
 * A submission's own credentials are other credentials: they are tried, once per send.
 */
async function loginOnce(
  ctx: WorkerContext,
  tx: TransactionSql,
  job: { accountId: number; sessionEpoch: number; requestId: string | null },
  resolved: ResolvedCredentials,
  signal?: AbortSignal,
): Promise<Session> {
  const { accountId, sessionEpoch: epoch } = job;
  if (resolved.source === 'account') {
    const [row] = await tx<{ refused: number | null }[]>`SELECT reg_creds_refused_epoch AS refused FROM accounts WHERE id = ${accountId}`;
    if (row?.refused === epoch) throw new CredentialsRefusedError('the account credentials were refused under this epoch');
  }
  try {
    return await login(ctx, accountId, epoch, resolved.credentials, job.requestId, signal);
  } catch (error) {
    if (resolved.source === 'account' && error instanceof RegistryHttpError && isLoginRefusal(error.status)) {
      // Only while the epoch is still the one tried: credentials saved meanwhile are new ones.
      await tx`UPDATE accounts SET reg_creds_refused_epoch = ${epoch} WHERE id = ${accountId} AND session_epoch = ${epoch}`;
    }
    throw error;
  }
}

/**
 * The account's cached session, else the one the deployment shares (shared-sessions.ts), else
 * a new login with the given credentials (loginOnce). Concurrent sends of one account share one
 * login; if a shared login was refused, a send whose own credentials may differ tries once on
 * its own before giving up, and a send with the account's refused ones gives up without one.
 */
export async function ensureSession(
  ctx: WorkerContext,
  job: { accountId: number; sessionEpoch: number; credsRefusedEpoch: number | null; requestId: string | null },
  credentials: () => ResolvedCredentials | null,
  signal?: AbortSignal,
): Promise<Session> {
  const cached = ctx.sessions.get(job.accountId, job.sessionEpoch);
  if (cached) return cached;
  let mine = false;
  const own = () =>
    sharedSession(ctx, job.accountId, job.sessionEpoch, (tx) => {
      const resolved = credentials();
      if (!resolved) throw new NoCredentialsError('no registry credentials');
      // Known refused at the claim: no need to read it again.
      if (resolved.source === 'account' && job.credsRefusedEpoch === job.sessionEpoch) throw new CredentialsRefusedError('the account credentials were refused under this epoch');
      return loginOnce(ctx, tx, job, resolved, signal);
    });
  try {
    const session = await ctx.sessions.singleFlight(job.accountId, () => {
      mine = true;
      return own();
    });
    // A login shared with a send of an older epoch does not serve this one.
    if (session.epoch === job.sessionEpoch) return session;
  } catch (error) {
    if (mine || !(error instanceof RegistryHttpError || error instanceof NoCredentialsError || error instanceof CredentialsRefusedError)) throw error;
  }
  return own();
}
