import { AppError } from '../../errors';

// How a staging ends early (row-writer.ts, stager.ts).

export const interrupted = (cauza: string) => new AppError('IMPORT_INTRERUPT', cauza);

/** The stager is stopping: the staging ends between two rows, and its file waits for the next stager. */
export const stagerStopping = () => interrupted('Procesul care încărca fișierul s-a oprit; fișierul așteaptă alt proces de încărcare.');

/** Another stager took the file over (this one's heartbeat was late): this staging ends, writing nothing more. */
export const claimLost = () => interrupted('Fișierul a fost preluat de alt proces de încărcare.');

export const tooManyRows = (maxRows: number) => new AppError('IMPORT_PREA_MULTE_RANDURI', `Fișierul are peste ${maxRows} rânduri de date (limita).`);
