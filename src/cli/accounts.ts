import { parseArgs } from 'node:util';
import { asc } from 'drizzle-orm';
import { accounts } from '../../db/schema';
import { runCli, say, UsageError } from './run';

const USAGE = `Usage:
  npm run --silent accounts -- create --name <name>   prints the new account id on its last line
  npm run --silent accounts -- list`;

await runCli(USAGE, async ({ db }, argv) => {
  const [command, ...rest] = argv;
  const { values } = parseArgs({ args: rest, options: { name: { type: 'string' } }, strict: true });
  if (command === 'create') {
    const name = values.name?.trim();
    if (!name) throw new UsageError(`--name is required\n${USAGE}`);
    const [row] = await db.insert(accounts).values({ name }).returning({ id: accounts.id });
    say(`Account "${name}" created.`);
    console.log(String(row!.id));
  } else if (command === 'list') {
    for (const a of await db.select().from(accounts).orderBy(asc(accounts.id))) console.log(`${a.id}\t${a.name}\t${a.createdAt.toISOString()}`);
  } else {
    throw new UsageError(USAGE);
  }
});
