import type { JournalEventName } from '../../src/journal/events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/context';
import { checkKey } from '../../src/services/accounts/key-check';
import { listJournal } from '../../src/services/journal/list';
import { startTestApp, type TestApp } from '../helpers/app';

// Issue 21: services take who acts and apply the role rules themselves (services/roles.ts):
// only a web user with the admin role reads every account's journal and learns whose another
// account's key is; an API key or a plain user of the same account never does.

let t: TestApp;
let mine: number;
let theirs: number;
let theirKey: string;

const user = (accountId: number, admin: boolean): Actor => ({ kind: 'user', accountId, userId: 1, admin });
const key = (accountId: number): Actor => ({ kind: 'key', accountId, keyId: 1 });

beforeAll(async () => {
  t = await startTestApp();
  mine = await t.createAccount();
  theirs = await t.createAccount('Alt service');
  theirKey = await t.createKey(theirs);
  t.ctx.journal.write({ event: 'test_roluri' as JournalEventName, requestId: 'roles', accountId: mine, data: {} });
  t.ctx.journal.write({ event: 'test_roluri' as JournalEventName, requestId: 'roles', accountId: theirs, data: {} });
  await t.ctx.journal.flush();
});
afterAll(() => t.close());

const journalAccounts = async (actor: Actor) => {
  const page = await listJournal({ ctx: t.ctx, actor, filters: { event: 'test_roluri' as JournalEventName, limit: 10 } });
  return { allAccounts: page.allAccounts, accounts: page.items.map((e) => e.accountId).sort() };
};

describe('the role rules live in the services', () => {
  it("the journal: an admin reads every account's, a user or a key only their own", async () => {
    expect(await journalAccounts(user(mine, true))).toEqual({ allAccounts: true, accounts: [mine, theirs].sort() });
    expect(await journalAccounts(user(mine, false))).toEqual({ allAccounts: false, accounts: [mine] });
    expect(await journalAccounts(key(mine))).toEqual({ allAccounts: false, accounts: [mine] });
  });

  it("the key tester names another account's key to an admin only", async () => {
    expect(await checkKey({ ctx: t.ctx, actor: user(mine, true), key: theirKey })).toEqual({ kind: 'other-named', accountId: theirs, accountName: 'Alt service' });
    expect(await checkKey({ ctx: t.ctx, actor: user(mine, false), key: theirKey })).toEqual({ kind: 'other' });
    expect(await checkKey({ ctx: t.ctx, actor: key(mine), key: theirKey })).toEqual({ kind: 'other' });
    expect(await checkKey({ ctx: t.ctx, actor: user(theirs, false), key: theirKey })).toMatchObject({ kind: 'own', accountId: theirs });
    expect(await checkKey({ ctx: t.ctx, actor: user(mine, true), key: 'nu-este-o-cheie' })).toEqual({ kind: 'invalid' });
  });
});
