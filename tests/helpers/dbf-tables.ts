import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DBFFile, type FieldDescriptor } from 'dbffile';
import iconv from 'iconv-lite';

// xBase tables for the .dbf import's tests, written by dbffile (a real xBase writer, through
// iconv-lite) and then touched as the desktop programs leave them: the language driver byte
// (dbffile leaves it 0), a record deleted in place (dbffile writes none), memo fields and
// their .fpt / .dbt (dbffile refuses to write memos; the layouts are FoxPro's and dBase III's).

export type DbfVersion = 0x03 | 0x30;

export interface TableSpec {
  version?: DbfVersion;
  /** iconv-lite name: cp1250, cp852, cp437. */
  encoding: string;
  /** The header's byte 29 (0: none). */
  languageDriver?: number;
  fields: FieldDescriptor[];
  records: Array<Record<string, unknown>>;
  /** 0-based records marked deleted ('*'), as DELETE leaves them before PACK. */
  deleted?: number[];
  /** Memo field name → its text per record (null: no memo); the field must be declared as `C` of size 10 (dBase) or 4 (VFP). */
  memo?: { field: string; texts: Array<string | null> };
}

export interface WrittenTable {
  dbf: Buffer;
  memo: Buffer | null;
  memoExt: 'fpt' | 'dbt' | null;
  /** The table as dbffile reads it back (deleted records left out, memos read from the memo file). */
  readBack: Array<Record<string, unknown>>;
}

const FPT_BLOCK = 64;

function fieldOffset(dbf: Buffer, name: string): { at: number; length: number; descriptor: number } {
  let offset = 1;
  for (let d = 32; dbf[d] !== 0x0d; d += 32) {
    const fieldName = dbf.toString('latin1', d, d + 11).replace(/\0.*$/, '');
    const length = dbf[d + 16]!;
    if (fieldName === name) return { at: offset, length, descriptor: d };
    offset += length;
  }
  throw new Error(`no field ${name}`);
}

/** A table written by dbffile, then made into what the program would leave (see above). */
export async function writeTable(spec: TableSpec): Promise<WrittenTable> {
  const dir = await mkdtemp(join(tmpdir(), 'dbf-'));
  try {
    const path = join(dir, 'service.dbf');
    const version = spec.version ?? 0x03;
    const table = await DBFFile.create(path, spec.fields, { fileVersion: version, encoding: spec.encoding });
    if (spec.records.length > 0) await table.appendRecords(spec.records);
    const dbf = await readFile(path);
    dbf[29] = spec.languageDriver ?? 0;
    const headerLength = dbf.readUInt16LE(8);
    const recordLength = dbf.readUInt16LE(10);
    for (const r of spec.deleted ?? []) dbf[headerLength + r * recordLength] = 0x2a;
    let memo: Buffer | null = null;
    let memoExt: WrittenTable['memoExt'] = null;
    if (spec.memo) {
      const { at, length, descriptor } = fieldOffset(dbf, spec.memo.field);
      dbf[descriptor + 11] = 'M'.charCodeAt(0);
      const blocks: Buffer[] = [];
      if (version === 0x30) {
        memoExt = 'fpt';
        dbf[28] = dbf[28]! | 0x02;
        const header = Buffer.alloc(512);
        header.writeUInt16BE(FPT_BLOCK, 6);
        let next = 512 / FPT_BLOCK;
        spec.memo.texts.forEach((text, r) => {
          const cell = headerLength + r * recordLength + at;
          if (text === null) {
            dbf.writeUInt32LE(0, cell);
            return;
          }
          const data = iconv.encode(text, spec.encoding);
          const block = Buffer.alloc(Math.ceil((8 + data.length) / FPT_BLOCK) * FPT_BLOCK);
          block.writeUInt32BE(1, 0);
          block.writeUInt32BE(data.length, 4);
          data.copy(block, 8);
          dbf.writeUInt32LE(next, cell);
          next += block.length / FPT_BLOCK;
          blocks.push(block);
        });
        header.writeUInt32BE(next, 0);
        memo = Buffer.concat([header, ...blocks]);
      } else {
        memoExt = 'dbt';
        dbf[0] = 0x83;
        const header = Buffer.alloc(512);
        let next = 1;
        spec.memo.texts.forEach((text, r) => {
          const cell = headerLength + r * recordLength + at;
          const pointer = text === null ? ''.padStart(length) : String(next).padStart(length);
          dbf.write(pointer, cell, 'latin1');
          if (text === null) return;
          const data = Buffer.concat([iconv.encode(text, spec.encoding), Buffer.from([0x1a, 0x1a])]);
          const block = Buffer.alloc(Math.ceil(data.length / 512) * 512);
          data.copy(block);
          next += block.length / 512;
          blocks.push(block);
        });
        header.writeUInt32LE(next, 0);
        memo = Buffer.concat([header, ...blocks]);
      }
    }
    await writeFile(path, dbf);
    if (memo) await writeFile(join(dir, `service.${memoExt}`), memo);
    const readBack = await (await DBFFile.open(path, { encoding: spec.encoding })).readRecords();
    return { dbf, memo, memoExt, readBack };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** dBase's date: dbffile writes a Date's local day. */
export const day = (iso: string) => new Date(`${iso}T00:00:00`);
