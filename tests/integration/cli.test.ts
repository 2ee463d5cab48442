import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app';
import { json, startTestApp, type TestApp } from '../helpers/app';

const run = promisify(execFile);
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

async function cli(tool: 'accounts' | 'keys', args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', `src/cli/${tool}.ts`, ...args], {
      env: { ...process.env, DATABASE_URL: t.databaseUrl },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

describe('accounts and keys command-line tools', () => {
  it('create an account and a key that authenticates; list never shows the plain key; rotate and revoke', async () => {
    const account = await cli('accounts', ['create', '--name', 'Service Popescu']);
    expect(account.code).toBe(0);
    const accountId = Number(lastLine(account.stdout));
    expect(accountId).toBeGreaterThan(1);

    const created = await cli('keys', ['create', '--account', String(accountId), '--name', 'atelier']);
    const plain = lastLine(created.stdout);
    expect(plain).toMatch(/^gw_[A-Za-z0-9_-]{20,}$/);
    const [stored] = await t.ctx.sql`SELECT key_hash FROM api_keys WHERE account_id = ${accountId}`;
    expect(stored?.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored?.key_hash).not.toContain(plain);

    const app = createApp(t.ctx);
    const ping = async (key: string) => app.request('/v1/ping', { headers: { 'X-API-Key': key } });
    expect(await json(await ping(plain))).toMatchObject({ account_id: accountId });

    const list = await cli('keys', ['list']);
    expect(list.stdout).not.toContain(plain);
    const keyId = Number(
      list.stdout
        .split('\n')
        .find((l) => l.includes('atelier'))!
        .split('\t')[0],
    );

    const rotated = await cli('keys', ['rotate', String(keyId)]);
    const replacement = lastLine(rotated.stdout);
    expect(replacement).not.toBe(plain);
    expect((await createApp(t.ctx).request('/v1/ping', { headers: { 'X-API-Key': plain } })).status).toBe(401);
    expect((await createApp(t.ctx).request('/v1/ping', { headers: { 'X-API-Key': replacement } })).status).toBe(200);

    const newId = Number((await cli('keys', ['list', '--account', String(accountId)])).stdout.trim().split('\n').at(-1)!.split('\t')[0]);
    expect((await cli('keys', ['revoke', String(newId)])).code).toBe(0);
    expect((await createApp(t.ctx).request('/v1/ping', { headers: { 'X-API-Key': replacement } })).status).toBe(401);
  }, 60_000);

  it('bad usage is a clear message and exit code 2', async () => {
    for (const args of [['create'], ['create', '--account', 'abc'], ['create', '--account', '999999'], ['revoke', 'x'], ['frobnicate']]) {
      const result = await cli('keys', args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/\S/);
      expect(result.stdout).toBe('');
    }
    expect((await cli('accounts', ['create'])).code).toBe(2);
  }, 60_000);
});
