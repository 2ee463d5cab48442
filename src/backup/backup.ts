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
        for await (const chunk of rows as AsyncIterable<Buffer>) {
          digest.update(chunk);
          await archive.frame('D', chunk);
        }
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
