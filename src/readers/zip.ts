import { AppError } from '../errors';
import { Transform, type Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

const MAX_ENTRIES = 10_000;

const bomb = (cauza: string) => new AppError('IMPORT_ARHIVA_PREA_MARE', cauza);
const corrupt = (cauza: string) => new AppError('IMPORT_FISIER_CORUPT', cauza);

/** An xlsx opened by its central directory: parts are inflated only when read, one at a time. */
export interface ZipArchive {
  has(name: string): boolean;
  /** The parts' names, as the central directory lists them. */
  names(): string[];
  /**
   * A part's bytes as a stream, cut off (with an error) past its declared size or the archive's
   * budget. `chunkSize`: inflated in pieces of that size (fewer trips to the thread pool for a
   * reader that does little with each piece) instead of yauzl's 16 KB.
   */
  open(name: string, options?: { chunkSize?: number }): Promise<Readable>;
}

function openZip(buffer: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (error, zip) => {
      if (error || !zip) reject(corrupt(`Arhiva xlsx este deteriorată (${error?.message ?? 'fără director central'}).`));
      else resolve(zip);
    });
  });
}

function listEntries(zip: ZipFile): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      if (entries.length > MAX_ENTRIES) {
        zip.close();
        reject(bomb(`Arhiva are peste ${MAX_ENTRIES} părți.`));
        return;
      }
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (error: Error) => reject(corrupt(`Arhiva xlsx este deteriorată (${error.message}).`)));
    zip.readEntry();
  });
}

/**
 * Reads only the central directory, and refuses the archive before inflating a byte when the
 * sizes it declares add up past `maxUncompressedBytes`. A part that inflates to more than it
 * declared is cut off by yauzl (validateEntrySizes), and a running total enforces the budget
 * on what is actually inflated, so a zip bomb costs neither memory nor much time.
 */
export async function openArchive(buffer: Buffer, maxUncompressedBytes: number): Promise<ZipArchive> {
  const zip = await openZip(buffer);
  const entries = await listEntries(zip);
  let declared = 0;
  for (const entry of entries) {
    if (entry.isEncrypted()) throw new AppError('IMPORT_PAROLAT', 'Părțile arhivei sunt criptate cu parolă.');
    declared += entry.uncompressedSize;
  }
  if (declared > maxUncompressedBytes) {
    throw bomb(`Dezarhivat ar avea ${declared} octeți; limita este ${maxUncompressedBytes}.`);
  }
  const byName = new Map(entries.map((e) => [e.fileName.replace(/^\/+/, ''), e]));
  let inflated = 0;
  // A sheet is inflated twice (its merged ranges, then its rows): the budget is on the bytes the
  // archive holds, so a part's bytes count once, however often it is read.
  const countedByPart = new Map<string, number>();

  return {
    has: (name) => byName.has(name),
    names: () => [...byName.keys()],
    open: (name, options = {}) =>
      new Promise((resolve, reject) => {
        const entry = byName.get(name);
        if (!entry) return reject(corrupt(`Lipsește partea ${name}.`));
        // With a chunk size of its own, a deflated part is inflated here rather than by yauzl (16 KB pieces).
        const own = options.chunkSize !== undefined && entry.compressionMethod === 8;
        zip.openReadStream(entry, own ? { decompress: false } : {}, (error, stream) => {
          if (error || !stream) return reject(corrupt(`Partea ${name} nu poate fi citită (${error?.message ?? 'necunoscut'}).`));
          const lied = () => bomb(`Partea ${name} se dezarhivează la altă dimensiune decât declară.`);
          let seen = 0;
          const budget = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              seen += chunk.length;
              if (seen > entry.uncompressedSize) return done(lied());
              const counted = countedByPart.get(name) ?? 0;
              if (seen > counted) {
                inflated += seen - counted;
                countedByPart.set(name, seen);
              }
              if (inflated > maxUncompressedBytes) done(bomb(`Conținutul dezarhivat depășește ${maxUncompressedBytes} octeți.`));
              else done(null, chunk);
            },
            flush(done) {
              done(seen < entry.uncompressedSize ? lied() : null);
            },
          });
          const damaged = (e: Error) => budget.destroy(/too many bytes|too few bytes/i.test(e.message) ? lied() : corrupt(`Partea ${name} este deteriorată.`));
          stream.on('error', damaged);
          if (!own) return resolve(stream.pipe(budget));
          const inflate = createInflateRaw({ chunkSize: options.chunkSize });
          inflate.on('error', damaged);
          budget.on('close', () => {
            stream.destroy();
            inflate.destroy();
          });
          resolve(stream.pipe(inflate).pipe(budget));
        });
      }),
  };
}
