import { AppError } from '../../errors';

// How a staging ends early, wherever it runs (row-writer.ts on the event loop, the rest thread).

export const interrupted = (cauza: string) => new AppError('IMPORT_INTRERUPT', cauza);

/** The server is stopping: the staging ends between two rows (or its thread is stopped). */
export const serverStopping = () => interrupted('Serverul s-a oprit în timpul încărcării.');

export const tooManyRows = (maxRows: number) => new AppError('IMPORT_PREA_MULTE_RANDURI', `Fișierul are peste ${maxRows} rânduri de date (limita).`);
