import { createHash, type Hash } from 'node:crypto';
import { ArchiveError, readArchive } from './archive';

/**
 * What a backup archive holds, frame by frame (src/backup/archive.ts carries the frames):
 *   H  the header: when, the migrations its schema had, its tables in load order
 *   T  a table starts: its name and the columns of its rows
 *   D  rows of that table, as COPY's text format writes them (one line per row)
 *   E  the table ends: its row count and the SHA-256 of its D bytes
 *   Z  the end: how many tables
 */
export interface BackupHeader {
  format: 1;
  createdAt: string;
  /** The migrations applied to the database it was read from: the schema its rows fit. */
  migrations: string[];
  tables: string[];
}

export interface TableStart {
  name: string;
  columns: string[];
}

export interface TableEnd {
  name: string;
  rows: number;
  sha256: string;
}

/** Row count and checksum of a table's D bytes, as the backup computes them and the reader checks them. */
export function tableDigest() {
  const hash: Hash = createHash('sha256');
  let rows = 0;
  return {
    update(bytes: Buffer) {
      hash.update(bytes);
      // COPY's text format escapes newlines inside values: each raw newline ends a row.
      for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) rows++;
    },
    end: () => ({ rows, sha256: hash.digest('hex') }),
  };
}

export interface ArchiveVisitor {
  header?(header: BackupHeader): Promise<void>;
  tableStart?(table: TableStart): Promise<void>;
  data?(bytes: Buffer): Promise<void>;
  /** Called once the table's rows matched their count and checksum. */
  tableEnd?(table: TableEnd): Promise<void>;
}

const parse = <T>(payload: Buffer): T => JSON.parse(payload.toString('utf8')) as T;

/**
 * Reads an archive end to end in order, checking its structure, each table's row count and
 * checksum against what the backup wrote, and that it ends where it says; `visitor` sees each
 * part as it passes (the restore loads it, the verification only counts).
 */
export async function walkArchive(path: string, passphrase: string, visitor: ArchiveVisitor = {}): Promise<{ header: BackupHeader; tables: TableEnd[] }> {
  let header: BackupHeader | undefined;
  let current: { start: TableStart; digest: ReturnType<typeof tableDigest> } | undefined;
  const tables: TableEnd[] = [];
  const broken = (what: string) => new ArchiveError(`Arhiva este deteriorată: ${what}.`);
  for await (const { type, payload } of readArchive(path, passphrase)) {
    if (!header) {
      if (type !== 'H') throw broken('lipsește antetul conținutului');
      header = parse<BackupHeader>(payload);
      if (header.format !== 1) throw new ArchiveError(`Arhiva are formatul ${String(header.format)}, pe care această versiune nu îl cunoaște.`);
      await visitor.header?.(header);
    } else if (type === 'T') {
      if (current) throw broken(`tabelul ${current.start.name} nu se încheie`);
      const start = parse<TableStart>(payload);
      if (start.name !== header.tables[tables.length]) throw broken(`tabelul ${start.name} nu este cel așteptat`);
      current = { start, digest: tableDigest() };
      await visitor.tableStart?.(start);
    } else if (type === 'D') {
      if (!current) throw broken('rânduri în afara unui tabel');
      current.digest.update(payload);
      await visitor.data?.(payload);
    } else if (type === 'E') {
      const end = parse<TableEnd>(payload);
      if (!current || end.name !== current.start.name) throw broken(`sfârșitul tabelului ${end.name} nu are început`);
      const read = current.digest.end();
      if (read.rows !== end.rows || read.sha256 !== end.sha256) {
        throw broken(`tabelul ${end.name} are ${read.rows} rânduri cu suma ${read.sha256.slice(0, 12)}…, arhiva spune ${end.rows} cu ${end.sha256.slice(0, 12)}…`);
      }
      current = undefined;
      tables.push(end);
      await visitor.tableEnd?.(end);
    } else if (type === 'Z') {
      if (current || tables.length !== header.tables.length) throw broken(`se încheie după ${tables.length} din ${header.tables.length} tabele`);
      return { header, tables };
    } else {
      throw broken(`o înregistrare de tip necunoscut (${JSON.stringify(type)})`);
    }
  }
  throw broken('se termină fără încheierea conținutului');
}
