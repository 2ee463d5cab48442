import { AppError } from '../errors';
import { looksLikeDbf } from './dbf';

export type FileKind = 'zip' | 'cfb' | 'dbf' | 'text';

const ZIP = [0x50, 0x4b];
// OLE2 compound file: a password-protected xlsx (EncryptedPackage) or a legacy .xls.
const CFB = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const BINARY_MAGIC: Array<{ bytes: number[]; name: string }> = [
  { bytes: [0x25, 0x50, 0x44, 0x46], name: 'PDF' },
  { bytes: [0x89, 0x50, 0x4e, 0x47], name: 'PNG' },
  { bytes: [0xff, 0xd8, 0xff], name: 'JPEG' },
  { bytes: [0x47, 0x49, 0x46, 0x38], name: 'GIF' },
  { bytes: [0x1f, 0x8b], name: 'gzip' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf], name: '7z' },
  { bytes: [0x52, 0x61, 0x72, 0x21], name: 'RAR' },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], name: 'ELF' },
  { bytes: [0x4d, 0x5a], name: 'EXE' },
];

const startsWith = (buffer: Buffer, bytes: number[]) => bytes.every((b, i) => buffer[i] === b);

/** What the bytes are, by content (never by the name or the declared type, which clients get wrong). */
export function sniffFile(buffer: Buffer): FileKind {
  if (buffer.length === 0) throw new AppError('IMPORT_FISIER_GOL', 'Fișierul încărcat are 0 octeți.');
  if (startsWith(buffer, ZIP)) return 'zip';
  // Before text: a Visual FoxPro table begins with '0' (0x30), but its next bytes are a date no text has.
  if (looksLikeDbf(buffer)) return 'dbf';
  if (startsWith(buffer, CFB)) {
    if (buffer.includes(Buffer.from('EncryptedPackage', 'utf16le'))) {
      throw new AppError('IMPORT_PAROLAT', 'Registrul de lucru este criptat cu o parolă de deschidere.');
    }
    throw new AppError('IMPORT_TIP_NESUPORTAT', 'Este un fișier Excel 97–2003 (.xls); salvați-l ca .xlsx.');
  }
  const magic = BINARY_MAGIC.find((m) => startsWith(buffer, m.bytes));
  if (magic) throw new AppError('IMPORT_TIP_NESUPORTAT', `Fișierul este de tip ${magic.name}.`);
  return 'text';
}
