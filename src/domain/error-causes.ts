import type { ErrorCode } from '../errors';

// Words a workshop clerk reads instead of codes: the registry error causes of the catalog and
// the worker's attempt outcomes (worker/failures.ts AttemptOutcome). One map for the list's
// filter by cause ("12 × autentificare refuzată"), the attempts table and the journal; the
// catalog's `problema` stays the full sentence. Codes not listed are shown as they are, so a
// code added later is never hidden.

/** A catalog code (reg_error.cod, submission_attempts.error_code) → a short Romanian phrase. */
export const ERROR_CAUSE_LABEL = {
  REG_LOGIN_RESPINS: 'autentificare refuzată',
  REG_CONTINUT_RESPINS: 'conținut respins',
  REG_EROARE_SERVER: 'eroare internă a registrului',
  REG_TOKEN_EXPIRAT: 'sesiune expirată',
  REG_CREDENTIALE_LIPSA: 'fără credențiale',
  REG_RETEA: 'registrul nu răspunde',
  REG_EROARE: 'altă eroare la transmitere',
  COD_NEMAPAT: 'cod nemapat',
} as const satisfies Partial<Record<ErrorCode, string>>;

export type ErrorCause = keyof typeof ERROR_CAUSE_LABEL;
export const ERROR_CAUSES = Object.keys(ERROR_CAUSE_LABEL) as ErrorCause[];

export function isErrorCause(value: string): value is ErrorCause {
  return Object.hasOwn(ERROR_CAUSE_LABEL, value);
}

/** The label of a stored code; an unknown one (an older build's) is shown as itself. */
export function errorCauseLabel(cod: string): string {
  return isErrorCause(cod) ? ERROR_CAUSE_LABEL[cod] : cod;
}

/** What an attempt row says happened (submission_attempts.outcome) → Romanian words. */
export const ATTEMPT_OUTCOME_LABEL: Record<string, string> = {
  sent: 'trimisă',
  reconciled: 'găsită deja în registru',
  rejected: 'refuzată de registru',
  login_rejected: 'autentificare refuzată',
  registry_error: 'eroare a registrului',
  token_expired: 'sesiune expirată, se reia',
  no_credentials: 'fără credențiale, așteaptă',
  network_error: 'fără răspuns de la registru',
  in_doubt: 'incertă (se verifică în registru)',
  released: 'eliberată la oprirea lucrătorului',
  invalid_record: 'înregistrare imposibil de trimis',
};

export const attemptOutcomeLabel = (outcome: string): string => ATTEMPT_OUTCOME_LABEL[outcome] ?? outcome;
