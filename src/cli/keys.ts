import { parseArgs } from 'node:util';
import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { accounts, apiKeys } from '../../db/schema';
import { generateApiKey } from '../crypto/hash';
import { runCli, say, UsageError } from './run';

const USAGE = `Usage:
  npm run --silent keys -- create --account <id> [--name <label>]   prints the key once, on its last line
  npm run --silent keys -- list [--account <id>]
  npm run --silent keys -- rotate <key-id>    revokes the key and prints its replacement
  npm run --silent keys -- revoke <key-id>`;

function positiveInt(value: string | undefined, what: string): number {
  if (!value || !/^\d{1,9}$/.test(value) || Number(value) < 1) throw new UsageError(`${what} must be a positive integer\n${USAGE}`);
  return Number(value);
}

async function issue(db: Db, accountId: number, name: string | null): Promise<{ id: number; plain: string }> {
  const key = generateApiKey();
  const [row] = await db.insert(apiKeys).values({ accountId, name, keyHash: key.hash, prefix: key.prefix }).returning({ id: apiKeys.id });
  return { id: row!.id, plain: key.plain };
}

await runCli(USAGE, async ({ db }, argv) => {
  const [command, ...rest] = argv;
  const { values, positionals } = parseArgs({ args: rest, options: { account: { type: 'string' }, name: { type: 'string' } }, allowPositionals: true, strict: true });

  if (command === 'create') {
    const accountId = positiveInt(values.account, '--account');
    const [account] = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
    if (!account) throw new UsageError(`Account ${accountId} does not exist (create it with: npm run --silent accounts -- create --name <name>)`);
    const key = await issue(db, accountId, values.name?.trim() || null);
    say(`Key ${key.id} created for account ${accountId}. It is shown once; only its SHA-256 is stored.`);
    console.log(key.plain);
  } else if (command === 'list') {
    const where = values.account ? eq(apiKeys.accountId, positiveInt(values.account, '--account')) : undefined;
    const rows = await db.select().from(apiKeys).where(where).orderBy(asc(apiKeys.id));
    console.log('id\taccount\tprefix\tname\tcreated\trevoked');
    for (const k of rows) {
      console.log([k.id, k.accountId, `${k.prefix}…`, k.name ?? '', k.createdAt.toISOString(), k.revokedAt?.toISOString() ?? ''].join('\t'));
    }
  } else if (command === 'rotate' || command === 'revoke') {
    const keyId = positiveInt(positionals[0], '<key-id>');
    const [revoked] = await db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
      .returning({ accountId: apiKeys.accountId, name: apiKeys.name });
    if (!revoked) throw new UsageError(`Key ${keyId} does not exist or is already revoked`);
    if (command === 'revoke') {
      say(`Key ${keyId} revoked (a running server stops accepting it within 5 seconds).`);
      return;
    }
    const key = await issue(db, revoked.accountId, revoked.name);
    say(`Key ${keyId} revoked; its replacement is key ${key.id}, shown once.`);
    console.log(key.plain);
  } else {
    throw new UsageError(USAGE);
  }
});
