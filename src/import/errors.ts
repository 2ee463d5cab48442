import type { ErrorCode } from '../errors';

/**
 * 409 for a batch that moved on (or is not staged yet), 413 for limits, 415 for a wrong file
 * type, 422 for a file that cannot be read, 503 for an upload the server stopped.
 */
export type ImportStatus = 409 | 413 | 415 | 422 | 503;

/**
 * A file or an import request that cannot be taken, with the status and catalog code the
 * client is told. Thrown by the readers and services; only the import router renders it.
 */
export class ImportError extends Error {
  constructor(
    readonly status: ImportStatus,
    readonly cod: ErrorCode,
    readonly cauza: string,
  ) {
    super(`${cod}: ${cauza}`);
  }
}
