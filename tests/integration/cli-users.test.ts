import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { browser, FAST_SCRYPT } from '../helpers/web';

let t: TestApp;
let accountId: number;

beforeAll(async () => {
  t = await startTestApp(FAST_SCRYPT);
  accountId = await t.createAccount('Service Vasilescu');
});
afterAll(() => t.close());

/** `npm run users -- …` as a user runs it (from source here), with `stdin` piped in. */
function users(args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/users.ts', ...args], { env: { ...process.env, DATABASE_URL: t.databaseUrl, ...FAST_SCRYPT } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}
const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

describe('npm run users', () => {
  it('creates a user with the password from stdin, who can sign in; list never shows a hash; reset and disable', async () => {
    const created = await users(['create', '--account', String(accountId), '--email', 'Ana@Service.ro'], 'o-parola-destul-de-lunga\n');
    expect(created.code, created.stderr).toBe(0);
    const userId = Number(lastLine(created.stdout));
    expect(userId).toBeGreaterThan(0);
    const [row] = await t.ctx.sql`SELECT password_hash FROM web_users WHERE id = ${userId}`;
    expect(row?.password_hash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(created.stdout + created.stderr).not.toContain('o-parola-destul-de-lunga');

    // The e-mail is matched whatever its case.
    expect((await browser(t).login('ana@service.ro', 'o-parola-destul-de-lunga')).status).toBe(303);

    const list = await users(['list']);
    expect(list.stdout).toContain('Ana@Service.ro');
    expect(list.stdout).not.toContain('scrypt');

    expect((await users(['reset-password', 'ana@service.ro'], 'alta-parola-foarte-lunga\n')).code).toBe(0);
    expect((await browser(t).login('ana@service.ro', 'o-parola-destul-de-lunga')).status).toBe(401);
    const signedIn = browser(t);
    expect((await signedIn.login('ana@service.ro', 'alta-parola-foarte-lunga')).status).toBe(303);

    expect((await users(['disable', 'ana@service.ro'])).code).toBe(0);
    expect((await signedIn.get('/')).status).toBe(303);
    expect((await browser(t).login('ana@service.ro', 'alta-parola-foarte-lunga')).status).toBe(401);

    // Enabled again, the same password signs in; a clerk is created with its role.
    expect((await users(['enable', 'ana@service.ro'])).code).toBe(0);
    expect((await browser(t).login('ana@service.ro', 'alta-parola-foarte-lunga')).status).toBe(303);
    const clerk = await users(['create', '--account', String(accountId), '--email', 'ion@service.ro', '--role', 'functionar'], 'o-parola-destul-de-lunga\n');
    expect(clerk.code, clerk.stderr).toBe(0);
    const [role] = await t.ctx.sql`SELECT role FROM web_users WHERE email = 'ion@service.ro'`;
    expect(role?.role).toBe('functionar');
    expect((await users(['create', '--account', String(accountId), '--email', 'x@service.ro', '--role', 'sef'], 'o-parola-destul-de-lunga\n')).code).toBe(2);
  }, 120_000);

  it('refuses bad usage with exit 2 and a message: no password, a short one, a duplicate, an unknown account or e-mail', async () => {
    const cases: Array<[string[], string]> = [
      [['create', '--account', String(accountId), '--email', 'x@y.ro'], ''],
      [['create', '--account', String(accountId), '--email', 'x@y.ro'], 'scurta\n'],
      [['create', '--account', '999999', '--email', 'x@y.ro'], 'o-parola-destul-de-lunga\n'],
      [['create', '--account', String(accountId), '--email', 'nu-e-email'], 'o-parola-destul-de-lunga\n'],
      [['create', '--account', String(accountId)], 'o-parola-destul-de-lunga\n'],
      [['reset-password', 'nimeni@y.ro'], 'o-parola-destul-de-lunga\n'],
      [['disable', 'nimeni@y.ro'], ''],
      [['create', '--account', String(accountId), '--email', 'x@y.ro', '--password', 'in-argument'], ''],
    ];
    for (const [args, stdin] of cases) {
      const result = await users(args, stdin);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/\S/);
      expect(result.stdout, args.join(' ')).toBe('');
    }
    await users(['create', '--account', String(accountId), '--email', 'dup@y.ro'], 'o-parola-destul-de-lunga\n');
    const dup = await users(['create', '--account', String(accountId), '--email', 'DUP@y.ro'], 'o-parola-destul-de-lunga\n');
    expect(dup.code).toBe(2);
    expect(dup.stderr).toContain('Există deja');
    const help = await users(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('reset-password');
  }, 90_000);
});
