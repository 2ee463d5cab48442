// Words a workshop clerk reads instead of codes: the registry error causes of the catalog and
// the worker's attempt outcomes (worker/failures.ts AttemptOutcome). Codes not listed are
// shown as they are, so a code added later is never hidden.

/** A catalog code (reg_error.cod, submission_attempts.error_code) → a short Romanian phrase. */
export const ERROR_CAUSE_LABEL: Record<string, string> = {
  REG_LOGIN_RESPINS: 'autentificare refuzată',
  REG_CONTINUT_RESPINS: 'conținut refuzat de registru',
  REG_EROARE_SERVER: 'eroare internă a registrului',
  REG_TOKEN_EXPIRAT: 'sesiune expirată',
  REG_CREDENTIALE_LIPSA: 'fără credențiale',
  REG_RETEA: 'registrul nu răspunde',
  REG_EROARE: 'eroare la transmitere',
  COD_NEMAPAT: 'cod nemapat',
};

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

/** The phrase for a code, or the code itself when it has none. */
export const errorCauseLabel = (cod: string): string => ERROR_CAUSE_LABEL[cod] ?? cod;
export const attemptOutcomeLabel = (outcome: string): string => ATTEMPT_OUTCOME_LABEL[outcome] ?? outcome;
