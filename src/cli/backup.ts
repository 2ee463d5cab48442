import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { takeBackup } from '../backup/backup';
import { walkArchive } from '../backup/format';
import { backupPassphrase } from '../backup/passphrase';
import { runCli, runTool, say, UsageError } from './run';

const USAGE = `Usage:
  npm run --silent backup -- --out FILE      a consistent copy of the database, taken while the service runs
  npm run --silent backup -- --verify FILE   reads an archive end to end and checks every part of it
  The archive is encrypted under GATEWAY_BACKUP_PASSPHRASE_FILE (or GATEWAY_BACKUP_PASSPHRASE);
  the master key is not in it: keep it apart (docs/operations-backup.md).`;

function options(args: string[]) {
  const { values } = parseArgs({ args, options: { out: { type: 'string' }, verify: { type: 'string' } }, strict: true });
  if ((values.out === undefined) === (values.verify === undefined)) throw new UsageError(USAGE);
  return values;
}

const rowCount = (tables: Array<{ rows: number }>) => tables.reduce((sum, t) => sum + t.rows, 0).toLocaleString('ro-RO');

// Read before anything opens the database: --verify needs none.
let parsed: ReturnType<typeof options> | undefined;
let refused: unknown;
try {
  parsed = options(process.argv.slice(2));
} catch (error) {
  refused = error instanceof UsageError ? error : new UsageError(`${(error as Error).message}\n${USAGE}`);
}

if (refused || parsed?.verify !== undefined) {
  await runTool(USAGE, async (_args, config) => {
    if (refused) throw refused;
    const path = parsed!.verify!;
    const { header, tables } = await walkArchive(path, backupPassphrase(config));
    for (const t of tables) console.log(`${t.name}\t${t.rows}`);
    say(`Arhiva ${path} este întreagă: ${tables.length} tabele, ${rowCount(tables)} rânduri, luată la ${header.createdAt}, schema ${header.migrations.at(-1)}.`);
    console.log('ok');
  });
} else {
  const out = resolve(parsed!.out!);
  await runCli(
    USAGE,
    async ({ sql }, _args, config) => {
      if (existsSync(out)) throw new UsageError(`${out} există deja: alegeți alt nume (un backup nu scrie peste altul).`);
      const passphrase = backupPassphrase(config);
      const { bytes, tables } = await takeBackup(sql, out, passphrase);
      say(`Backup în ${out}: ${tables.length} tabele, ${rowCount(tables)} rânduri, ${(bytes / 1024 / 1024).toFixed(1)} MB, criptat cu parola de backup.`);
      say('Cheia principală nu este în arhivă: fără ea datele criptate (credențialele, rândurile importurilor) nu se pot citi; păstrați-o separat.');
      console.log(out);
    },
    { migrate: false },
  );
}
