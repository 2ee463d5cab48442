import { parseArgs } from 'node:util';
import { createKeyring } from '../crypto/envelope';
import { checkMasterKey } from '../crypto/master-keys';
import { rotateMasterKey } from '../crypto/rotate';
import { runCli, say, UsageError } from './run';

const USAGE = `Usage:
  npm run --silent rotate-key [-- --batch N]
  Re-encrypts every encrypted value under the current master key (GATEWAY_SECRET_KEY, or the
  data dir's secret.key), reading the old ones with GATEWAY_OLD_SECRET_KEYS; online, N rows
  (default 500) per committed batch, so it can be stopped and run again. Restart every server
  and worker with the new key first (docs/operations-keys.md).`;

await runCli(USAGE, async ({ sql }, argv, config) => {
  const { values } = parseArgs({ args: argv, options: { batch: { type: 'string', default: '500' } }, strict: true });
  if (!/^\d{1,6}$/.test(values.batch) || Number(values.batch) < 1) throw new UsageError(`--batch must be a positive integer\n${USAGE}`);
  const secret = await checkMasterKey(sql, config, say, { generate: false });
  const keyring = createKeyring(secret, config.GATEWAY_OLD_SECRET_KEYS);
  say(`Re-criptez sub cheia ${keyring.currentKeyId}…`);
  const result = await rotateMasterKey(sql, keyring, {
    batch: Number(values.batch),
    progress: ({ column, rotated }) => say(`  ${column.table}.${column.column}: ${rotated} re-criptate`),
  });
  say(`${result.rotated} valori re-criptate sub cheia ${keyring.currentKeyId}.`);
  for (const line of result.unreadable) say(`Nu se poate decripta (lăsat cum era): ${line}`);
  if (result.retired.length > 0) {
    say(`Nimic nu mai este criptat cu ${result.retired.join(', ')}: scoateți-o din GATEWAY_OLD_SECRET_KEYS (și din copiile cheii) la următoarea repornire.`);
  }
  if (result.unreadable.length > 0) throw new Error(`${result.unreadable.length} valori nu se pot decripta (deteriorate); restul este sub cheia ${keyring.currentKeyId}.`);
  if (result.remaining.size > 0) {
    const left = [...result.remaining].map(([id, n]) => `${n} sub ${id}`).join(', ');
    throw new Error(
      `Au rămas valori sub alte chei (${left}): un server sau worker încă rulează cu cheia veche? Reporniți-le cu GATEWAY_SECRET_KEY nou și rulați din nou npm run rotate-key.`,
    );
  }
  console.log(keyring.currentKeyId);
});
