import { isDatabaseUnavailable } from '../db/unavailable';
import { CATALOG, type ErrorCode, type RegError } from '../src/errors';
import { CredentialsRefusedError, NoCredentialsError } from './login';
import { RecordError } from './registry/record';
import { RegistryHttpError, RegistryNetworkError } from './registry/client';
import { backoffSeconds, type WorkerSettings } from './settings';

/** What an attempt row says happened. `in_doubt`: the record may have reached the registry. */
export type AttemptOutcome =
  | 'sent'
  | 'reconciled'
  | 'rejected'
  | 'login_rejected'
  | 'registry_error'
  | 'token_expired'
  | 'no_credentials'
  | 'network_error'
  | 'in_doubt'
  | 'released'
  | 'invalid_record';

/** Where the delivery was when it failed. */
export type Phase = 'prepare' | 'login' | 'reconcile' | 'send';

export type Outcome =
  | { kind: 'sent'; outcome: 'sent' | 'reconciled'; registryId: string; httpStatus: number; latencyMs: number }
  | { kind: 'error'; outcome: AttemptOutcome; regError: RegError; httpStatus: number | null; latencyMs: number | null }
  | {
      kind: 'requeue';
      outcome: AttemptOutcome;
      /** undefined keeps the stored reg_error. */
      regError?: RegError;
      delayS: number;
      /** Waiting for credentials or a shutdown is not a delivery attempt; it does not count toward the limit. */
      countsAsAttempt: boolean;
      httpStatus: number | null;
      latencyMs: number | null;
    };

/** The three-level form stored in `reg_error`, with the registry's own words beside it. */
export function regError(cod: ErrorCode, cauza: string, registry: { mesaj?: string | null; httpStatus?: number | null } = {}): RegError {
  const { problema, fix } = CATALOG[cod];
  return { cod, problema, cauza, fix, mesaj_registru: registry.mesaj ?? null, http_status: registry.httpStatus ?? null };
}

const PHASE_TEXT: Record<Phase, string> = {
  prepare: 'pregătirea înregistrării',
  login: 'autentificare',
  reconcile: 'verificarea listei de înregistrări finalizate',
  send: 'transmiterea înregistrării',
};

export interface FailureContext {
  phase: Phase;
  /** This attempt's number since the submission was last queued by a user (submissions.attempts). */
  attempts: number;
  credentialWaits: number;
  settings: Pick<WorkerSettings, 'maxAttempts' | 'backoffBaseS' | 'backoffMaxS' | 'credsRetryS' | 'credsRetryMaxS'>;
  random?: () => number;
}

/**
 * The spec's outcome table as one pure function: what a failed delivery does to the
 * submission. Only network failures and expired tokens are retried, up to maxAttempts.
 */
export function outcomeOfFailure(error: unknown, f: FailureContext): Outcome {
  const { phase, attempts, settings } = f;
  const backoff = (n: number) => backoffSeconds(n, settings.backoffBaseS, settings.backoffMaxS, f.random);
  const retryOr = (
    outcome: AttemptOutcome,
    cod: ErrorCode,
    cauza: string,
    delayS: number,
    http: { mesaj?: string | null; httpStatus?: number | null; latencyMs?: number | null },
  ): Outcome => {
    const reg = regError(cod, cauza, http);
    const latencyMs = http.latencyMs ?? null;
    if (attempts >= settings.maxAttempts) {
      return { kind: 'error', outcome, regError: { ...reg, cauza: `${cauza} Renunțat după ${attempts} încercări.` }, httpStatus: http.httpStatus ?? null, latencyMs };
    }
    return { kind: 'requeue', outcome, regError: reg, delayS, countsAsAttempt: true, httpStatus: http.httpStatus ?? null, latencyMs };
  };

  if (error instanceof NoCredentialsError) {
    const delayS = Math.min(settings.credsRetryS * 2 ** f.credentialWaits, settings.credsRetryMaxS);
    const reg = regError('REG_CREDENTIALE_LIPSA', 'Trimiterea nu are credențiale proprii, iar contul nu are credențiale salvate.');
    return { kind: 'requeue', outcome: 'no_credentials', regError: reg, delayS, countsAsAttempt: false, httpStatus: null, latencyMs: null };
  }
  if (error instanceof CredentialsRefusedError) {
    // The spec's login 401 row, without asking the registry again (login.ts).
    return {
      kind: 'error',
      outcome: 'login_rejected',
      regError: regError(
        'REG_LOGIN_RESPINS',
        'Registrul a refuzat deja credențialele contului la o autentificare anterioară; nu s-a mai încercat, ca registrul să nu blocheze contul. Trimiterea se repune în coadă odată cu salvarea unor credențiale corecte.',
      ),
      httpStatus: null,
      latencyMs: null,
    };
  }
  if (error instanceof RecordError) {
    return {
      kind: 'error',
      outcome: 'invalid_record',
      regError: regError('REG_EROARE', `Înregistrarea stocată nu poate fi trimisă: ${error.message}.`),
      httpStatus: null,
      latencyMs: null,
    };
  }
  if (error instanceof RegistryNetworkError) {
    const outcome: AttemptOutcome = phase === 'send' ? 'in_doubt' : 'network_error';
    if (error.aborted) {
      // The worker is shutting down: back to the queue now, for whoever runs next.
      if (phase === 'send') return { kind: 'requeue', outcome, delayS: 0, countsAsAttempt: true, httpStatus: null, latencyMs: error.latencyMs };
      return { kind: 'requeue', outcome: 'released', delayS: 0, countsAsAttempt: false, httpStatus: null, latencyMs: null };
    }
    return retryOr(outcome, 'REG_RETEA', `Fără răspuns la ${PHASE_TEXT[phase]}: ${error.message}.`, backoff(attempts), { latencyMs: error.latencyMs });
  }
  if (error instanceof RegistryHttpError) {
    const http = { mesaj: error.mesaj, httpStatus: error.status, latencyMs: error.latencyMs };
    const said = error.mesaj ? ` Registrul: ${error.cod ? `${error.cod}: ` : ''}${error.mesaj}` : '';
    if (phase === 'login' && (error.status === 401 || error.status === 400 || error.status === 403)) {
      return {
        kind: 'error',
        outcome: 'login_rejected',
        regError: regError('REG_LOGIN_RESPINS', `Autentificarea a fost refuzată (HTTP ${error.status}).${said}`, http),
        httpStatus: error.status,
        latencyMs: error.latencyMs,
      };
    }
    if (error.status === 401) {
      // Token expired or revoked: a fresh login follows at once; repeated refusals back off.
      return retryOr('token_expired', 'REG_TOKEN_EXPIRAT', `Registrul a refuzat sesiunea la ${PHASE_TEXT[phase]}.`, attempts <= 1 ? 0 : backoff(attempts - 1), http);
    }
    if (error.status >= 500) {
      return {
        kind: 'error',
        outcome: 'registry_error',
        regError: regError('REG_EROARE_SERVER', `Registrul a răspuns HTTP ${error.status} la ${PHASE_TEXT[phase]}.${said}`, http),
        httpStatus: error.status,
        latencyMs: error.latencyMs,
      };
    }
    // The registry judged the record itself: the clerk corrects it (domain/statuses.ts CONTENT_REG_ERRORS).
    const cod: ErrorCode = phase === 'send' && (error.status === 400 || error.status === 422) ? 'REG_CONTINUT_RESPINS' : 'REG_EROARE';
    const cauza = error.mesaj ? `${error.cod ? `${error.cod}: ` : ''}${error.mesaj}` : `Registrul a răspuns HTTP ${error.status} la ${PHASE_TEXT[phase]}.`;
    return { kind: 'error', outcome: 'rejected', regError: regError(cod, cauza, http), httpStatus: error.status, latencyMs: error.latencyMs };
  }
  if (isDatabaseUnavailable(error)) {
    // Our database went away (a restart, a failover), not the registry: no attempt is spent,
    // and the row waits in the queue until a claim can reach the database again.
    return { kind: 'requeue', outcome: phase === 'send' ? 'in_doubt' : 'released', delayS: 0, countsAsAttempt: false, httpStatus: null, latencyMs: null };
  }
  // Anything else is our own fault (a bug, a lost database connection): never lose the
  // record, never risk a duplicate: retry, reconciling first if the send had started.
  const message = error instanceof Error ? error.message : String(error);
  return retryOr(phase === 'send' ? 'in_doubt' : 'network_error', 'REG_EROARE', `Eroare internă la ${PHASE_TEXT[phase]}: ${message}.`, backoff(attempts), {});
}
