import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import type postgres from 'postgres';
import type { Sql } from '../../db/client';
import { applyMigrations, migrationTags } from '../../db/migrate';
import { ArchiveError } from './archive';
import { walkArchive, type BackupHeader, type TableEnd } from './format';
import { existingTables, quoteIdent, resetSequences, tablesInLoadOrder } from './tables';

export class RestoreRefused extends Error {}

/** The last of this build's migrations the archive's schema had; an archive of a newer build is refused. */
function archiveSchema(header: BackupHeader): string {
  const tags = migrationTags();
  const unknown = header.migrations.filter((tag) => !tags.includes(tag));
  if (unknown.length > 0) {
    throw new RestoreRefused(
      `Arhiva vine de la o versiune mai nouă a gateway-ului (migrații necunoscute aici: ${unknown.join(', ')}): restaurați-o cu acea versiune sau una mai nouă.`,
    );
  }
  const last = Math.max(...header.migrations.map((tag) => tags.indexOf(tag)));
  if (last < 0) throw new ArchiveError('Arhiva este deteriorată: nu spune ce schemă avea baza de date.');
  return tags[last]!;
}

/** Refuses a target that holds any table: a restore never mixes with, or replaces, data already there. */
export async function assertEmptyTarget(sql: Sql | postgres.TransactionSql, where: string): Promise<void> {
  const found = await existingTables(sql);
  if (found.length === 0) return;
  const withRows = found.filter((t) => t.hasRows).map((t) => t.name);
  const what =
    withRows.length > 0 ? `${found.length} tabele, cu rânduri în ${withRows.slice(0, 5).join(', ')}${withRows.length > 5 ? ', …' : ''}` : `${found.length} tabele (goale)`;
  throw new RestoreRefused(`Restaurarea cere o bază de date goală, iar ${where} are deja ${what}. Nimic nu a fost schimbat.`);
}

/**
 * Loads an archive into an empty database, all in one transaction (a restore that fails leaves
 * the target as empty as it was): the schema the archive was read from (this build's migrations
 * up to the archive's last one), its rows table by table, each checked against its count and
 * checksum, the sequences past the loaded ids, then the rest of the migrations.
 */
export async function restoreBackup(sql: Sql, path: string, passphrase: string, where: string): Promise<{ header: BackupHeader; tables: TableEnd[]; migrated: string[] }> {
  return sql.begin(async (tx) => {
    await assertEmptyTarget(tx, where);
    let copy: Writable | undefined;
    let migrated: string[] = [];
    const walked = await walkArchive(path, passphrase, {
      async header(header) {
        await applyMigrations(tx, { upTo: archiveSchema(header), seed: false });
        // Migrations seed rows of their own (the implicit account); the archive has them too.
        const tables = await tablesInLoadOrder(tx);
        if (tables.length > 0) await tx.unsafe(`TRUNCATE ${tables.map(quoteIdent).join(', ')}`);
      },
      async tableStart({ name, columns }) {
        copy = await tx.unsafe(`COPY ${quoteIdent(name)} (${columns.map(quoteIdent).join(', ')}) FROM STDIN`).writable();
      },
      async data(bytes) {
        if (!copy!.write(bytes)) await once(copy!, 'drain');
      },
      async tableEnd() {
        copy!.end();
        await finished(copy!);
        copy = undefined;
      },
    }).catch((error: unknown) => {
      copy?.destroy();
      throw error;
    });
    await resetSequences(tx);
    migrated = await applyMigrations(tx);
    return { ...walked, migrated };
  });
}
