import { AppError, type RequestErrorCode } from '../../errors';

// How a staging ends early, wherever it runs (row-writer.ts on the event loop, the rest thread).

export const interrupted = (cauza: string) => new AppError('IMPORT_INTRERUPT', cauza);

/** The server is stopping: the staging ends between two rows (or its thread is stopped). */
export const serverStopping = () => interrupted('Serverul s-a oprit în timpul încărcării.');

export const tooManyRows = (maxRows: number) => new AppError('IMPORT_PREA_MULTE_RANDURI', `Fișierul are peste ${maxRows} rânduri de date (limita).`);

/** A staging error as it crosses between threads (a structured clone keeps no class). */
export interface ThreadFailure {
  kind: 'failed';
  cod: RequestErrorCode | null;
  cauza: string;
  field?: string;
}

export function toThreadFailure(error: unknown): ThreadFailure {
  return error instanceof AppError
    ? { kind: 'failed', cod: error.cod, cauza: error.cauza, field: error.field }
    : { kind: 'failed', cod: null, cauza: error instanceof Error ? error.message : String(error) };
}

/** The error again: an AppError as such, anything else as a plain Error with its message. */
export function fromThreadFailure(failed: ThreadFailure): Error {
  return failed.cod ? new AppError(failed.cod, failed.cauza, failed.field) : new Error(failed.cauza);
}
