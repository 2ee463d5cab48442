import { AppError, type RequestErrorCode } from '../../errors';

export interface FormRefusal {
  cod: RequestErrorCode;
  cauza?: string;
  field?: string;
}

/**
 * A service's refusal as a form shows it: a bad field is the form's FORMULAR_INVALID (422, the
 * form again), anything else keeps its own code. Any other error is not a refusal: rethrown.
 */
export function asFormRefusal(error: unknown): FormRefusal {
  if (!(error instanceof AppError)) throw error;
  return { cod: error.cod === 'CERERE_INVALIDA' ? 'FORMULAR_INVALID' : error.cod, cauza: error.cauza, field: error.field };
}
