import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkArchivePassphrase } from '../backup/archive';
import { backupPassphrase } from '../backup/passphrase';
import { restoreBackup } from '../backup/restore';
import { runCli, say, UsageError } from './run';

const USAGE = `Usage:
  npm run --silent restore -- --from FILE    loads a backup archive into an empty database
  The target is DATABASE_URL (an empty database), or the embedded database of GATEWAY_DATA_DIR
  (a new, empty directory). The passphrase comes from GATEWAY_BACKUP_PASSPHRASE_FILE (or
  GATEWAY_BACKUP_PASSPHRASE); then put the master key in place before npm start
  (docs/operations-backup.md).`;

function archivePath(argv: string[]): string {
  const { values } = parseArgs({ args: argv, options: { from: { type: 'string' } }, strict: true });
  if (!values.from) throw new UsageError(USAGE);
  return resolve(values.from);
}

await runCli(
  USAGE,
  async ({ sql }, argv, config) => {
    const from = archivePath(argv);
    const where = config.DATABASE_URL ? 'baza de date din DATABASE_URL' : `baza de date din ${resolve(config.GATEWAY_DATA_DIR)}`;
    const { header, tables, migrated } = await restoreBackup(sql, from, backupPassphrase(config), where);
    const rows = tables.reduce((sum, t) => sum + t.rows, 0);
    say(`Restaurat din ${from} (luat la ${header.createdAt}): ${tables.length} tabele, ${rows.toLocaleString('ro-RO')} rânduri.`);
    if (migrated.length > 0) say(`Migrat apoi la schema acestei versiuni: ${migrated.join(', ')}.`);
    say('Puneți cheia principală la locul ei (GATEWAY_SECRET_KEY, sau secret.key în GATEWAY_DATA_DIR) înainte de npm start.');
    console.log('ok');
  },
  {
    database: 'create',
    migrate: false,
    // A missing passphrase, a wrong one or a file that is no archive is said before a new data
    // dir is made and initialised for nothing.
    before: async (argv, config) => checkArchivePassphrase(archivePath(argv), backupPassphrase(config)),
  },
);
