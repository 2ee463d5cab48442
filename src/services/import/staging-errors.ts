import { AppError } from '../../errors';

// How a staging ends early, wherever it runs (row-writer.ts on the event loop, the rest thread).

export const interrupted = (cauza: string) => new AppError('IMPORT_INTRERUPT', cauza);

export const tooManyRows = (maxRows: number) => new AppError('IMPORT_PREA_MULTE_RANDURI', `Fișierul are peste ${maxRows} rânduri de date (limita).`);
