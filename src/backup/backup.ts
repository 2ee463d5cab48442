import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Sql } from '../../db/client';
import { createArchive } from './archive';
import type { BackupHeader, TableEnd } from './format';
import { tableDigest } from './format';
import { quoteIdent, storedColumns, tablesInLoadOrder } from './tables';

/**
 * Writes every table of the database to an archive at `path` from one snapshot (a REPEATABLE
 * READ, READ ONLY transaction): the service keeps running and writing, and the archive is the
 * database as it was at one instant, with no version of pg_dump needed.
 */
export async function takeBackup(sql: Sql, path: string, passphrase: string, now = new Date()): Promise<{ bytes: number; tables: TableEnd[] }> {
  const archive = await createArchive(path, passphrase);
  try {
    const tables = await sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
      const migrations = (await tx<{ tag: string }[]>`SELECT tag FROM gateway_migrations ORDER BY applied_at, tag`).map((r) => r.tag);
      const names = await tablesInLoadOrder(tx);
      const header: BackupHeader = { format: 1, createdAt: now.toISOString(), migrations, tables: names };
      await archive.frame('H', JSON.stringify(header));
      const ends: TableEnd[] = [];
      for (const name of names) {
        const columns = await storedColumns(tx, name);
        await archive.frame('T', JSON.stringify({ name, columns }));
        const digest = tableDigest();
        const rows = await tx.unsafe(`COPY ${quoteIdent(name)} (${columns.map(quoteIdent).join(', ')}) TO STDOUT`).readable();
        // postgres.js pauses its socket when the stream's buffer is full and resumes it from the
        // stream's read(); when the end of the COPY came while paused, nothing reads again and
        // the query's completion waits on the paused socket forever. Its read() resumes it.
        rows.once('end', () => (rows as unknown as { _read: (n: number) => void })._read(0));
        await pipeline(
          rows,
          new Writable({
            write(chunk: Buffer, _encoding, done) {
              digest.update(chunk);
              archive.frame('D', chunk).then(() => done(), done);
            },
          }),
        );
        const end = { name, ...digest.end() };
        await archive.frame('E', JSON.stringify(end));
        ends.push(end);
      }
      await archive.frame('Z', JSON.stringify({ tables: names.length }));
      return ends;
    });
    const { bytes } = await archive.close();
    return { bytes, tables };
  } catch (error) {
    await archive.abort();
    throw error;
  }
}
