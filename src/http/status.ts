import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { RequestErrorCode } from '../errors';

/**
 * The HTTP status of each code a request can fail with: every API error envelope, and the
 * dashboard's answer to a thrown AppError or an unreadable body, read it from here. The codes
 * of a stored submission (`erori`, `reg_error`) have none: they never answer a request.
 */
export const codeToStatus = {
  CERERE_INVALIDA: 400,
  FORMULAR_INVALID: 422,
  NEAUTENTIFICAT: 401,
  AUTENTIFICARE_ESUATA: 401,
  NEAUTORIZAT_CSRF: 403,
  INTERZIS: 403,
  LINK_INVALID: 410,
  INREGISTRARE_INCHISA: 403,
  NEGASIT: 404,
  CONFLICT_STARE: 409,
  PREA_MULTE_CERERI: 429,
  PREA_MARE: 413,
  CORP_ILIZIBIL: 400,
  TIP_CORP_NESUPORTAT: 415,
  CORP_PREA_LENT: 408,
  PREA_MULTE_CONEXIUNI: 429,
  IMAGINE_PREA_MARE: 413,
  EROARE_INTERNA: 500,
  BAZA_INDISPONIBILA: 503,
  IMPORT_PREA_MULTE_INCARCARI: 429,
  SERVER_OCUPAT: 503,
  CONT_PREA_MULTE_OPERATII: 429,
  SERVER_OCUPAT_OPERATII: 503,
  IMPORT_TIP_NESUPORTAT: 415,
  IMPORT_FISIER_GOL: 422,
  IMPORT_FARA_ANTET: 422,
  IMPORT_PAROLAT: 422,
  IMPORT_CODARE: 422,
  IMPORT_FISIER_CORUPT: 422,
  IMPORT_DBF_CORUPT: 422,
  IMPORT_DBF_MEMO: 422,
  IMPORT_DBF_CODARE: 422,
  IMPORT_PREA_MULTE_RANDURI: 413,
  IMPORT_PREA_MULTE_COLOANE: 413,
  IMPORT_CELULA_PREA_LUNGA: 413,
  IMPORT_PREA_MULTE_CELULE_UNITE: 413,
  IMPORT_ARHIVA_PREA_MARE: 413,
  IMPORT_FOAIE: 422,
  IMPORT_MAPARE_INVALIDA: 422,
  IMPORT_DEJA_CONFIRMAT: 409,
  IMPORT_CONFIRMARE_NUMAR: 409,
  IMPORT_CONFIRMARE_HASH: 409,
  IMPORT_IN_CURS: 409,
  IMPORT_ESUAT: 409,
  IMPORT_INTRERUPT: 503,
} as const satisfies Record<RequestErrorCode, ContentfulStatusCode>;

export type ErrorStatus = (typeof codeToStatus)[RequestErrorCode];

export function statusOf(cod: RequestErrorCode): ErrorStatus {
  return codeToStatus[cod];
}
