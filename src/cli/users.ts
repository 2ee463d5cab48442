import { parseArgs } from 'node:util';
import { AppError } from '../errors';
import { isRole } from '../services/roles';
import { createUser, disableUser, enableUser, listUsers, resetPassword } from '../services/users/users';
import { runCli, say, UsageError } from './run';

const USAGE = `Usage (the password is read from standard input, never from an argument):
  npm run --silent users -- create --account <id> --email <email> [--role administrator|functionar] [--admin]
                                                     prints the user id on its last line
  npm run --silent users -- list
  npm run --silent users -- reset-password <email>
  npm run --silent users -- disable <email>
  npm run --silent users -- enable <email>
--role is the user's within the account (default administrator: manages its people, registry
credentials and settings; a functionar imports, maps, corrects, requeues and deletes).
--admin makes the operator's administrator, who sees every account's journal.`;

/** The first line of standard input (a pipe, or typed at a terminal). */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) say('Parola (cel puțin 12 caractere), apoi Enter:');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if ((chunk as Buffer).includes(10)) break;
  }
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  if (password === '') throw new UsageError(`No password on standard input\n${USAGE}`);
  return password;
}

/** The options; an unknown one (a password given as an argument, say) is a usage error. */
function parseOptions(args: string[]) {
  try {
    return parseArgs({
      args,
      options: { account: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, admin: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
}

function positiveInt(value: string | undefined, what: string): number {
  if (!value || !/^\d{1,9}$/.test(value) || Number(value) < 1) throw new UsageError(`${what} must be a positive integer\n${USAGE}`);
  return Number(value);
}

/** A service's refusal (bad e-mail, weak password, unknown account or user) is a usage error. */
async function asUsage<T>(fn: () => Promise<T>, notFound: string): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AppError) throw new UsageError(error.cod === 'NEGASIT' ? notFound : error.cauza);
    throw error;
  }
}

await runCli(USAGE, async ({ db }, argv, config) => {
  const [command, ...rest] = argv;
  const { values, positionals } = parseOptions(rest);
  const scryptN = config.GATEWAY_SCRYPT_N;

  if (command === 'create') {
    const accountId = positiveInt(values.account, '--account');
    if (!values.email) throw new UsageError(`--email is required\n${USAGE}`);
    const role = values.role ?? 'administrator';
    if (!isRole(role)) throw new UsageError(`--role must be administrator or functionar\n${USAGE}`);
    const password = await readPassword();
    const id = await asUsage(
      () => createUser(db, { accountId, email: values.email!, password, admin: values.admin ?? false, role, scryptN }),
      `Account ${accountId} does not exist (create it with: npm run --silent accounts -- create --name <name>)`,
    );
    say(`User ${id} created for account ${accountId} (${role}${values.admin ? ', operator admin' : ''}).`);
    console.log(id);
  } else if (command === 'list') {
    console.log('id\taccount\temail\trole\tadmin\tcreated\tdisabled');
    for (const u of await listUsers(db)) {
      console.log([u.id, u.accountId, u.email, u.role, u.isAdmin ? 'da' : 'nu', u.createdAt.toISOString(), u.disabledAt?.toISOString() ?? ''].join('\t'));
    }
  } else if (command === 'reset-password') {
    const email = positionals[0];
    if (!email) throw new UsageError(USAGE);
    const password = await readPassword();
    await asUsage(() => resetPassword(db, { email, password, scryptN }), 'No user has this e-mail address');
    say('Password changed; the user was signed out everywhere.');
  } else if (command === 'disable') {
    const email = positionals[0];
    if (!email) throw new UsageError(USAGE);
    await asUsage(() => disableUser(db, email), 'No user has this e-mail address');
    say('User disabled; their sessions have ended.');
  } else if (command === 'enable') {
    const email = positionals[0];
    if (!email) throw new UsageError(USAGE);
    await asUsage(() => enableUser(db, email), 'No user has this e-mail address');
    say('User enabled; they can sign in with their password again.');
  } else {
    throw new UsageError(USAGE);
  }
});
