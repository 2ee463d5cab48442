import type { ErrorCode } from '../errors';

/**
 * What a registry error is, in a clerk's words: short enough for a chip ("12 × autentificare
 * refuzată"), one map for the list's filter, the attempts table and the journal. The catalog's
 * `problema` stays the full sentence; this is its label.
 */
export const ERROR_CAUSE_LABEL = {
  REG_LOGIN_RESPINS: 'autentificare refuzată',
  REG_CONTINUT_RESPINS: 'conținut respins',
  REG_EROARE_SERVER: 'eroare internă a registrului',
  REG_TOKEN_EXPIRAT: 'sesiune expirată',
  REG_CREDENTIALE_LIPSA: 'fără credențiale',
  REG_RETEA: 'registrul nu răspunde',
  REG_EROARE: 'altă eroare la transmitere',
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
