import { and, eq, isNull } from 'drizzle-orm';
import { accounts, apiKeys } from '../../../db/schema';
import type { Actor, AppContext } from '../../context';
import { sha256Hex } from '../../crypto/hash';
import { seesEveryAccount } from '../roles';

/** Longer than any key the CLI issues: such a text is not looked up (the API refuses it the same way). */
export const MAX_KEY_LENGTH = 200;

export interface KeyOwner {
  accountId: number;
  accountName: string;
}

export interface ActiveKey extends KeyOwner {
  keyId: number;
}

/**
 * The SHA-256 a key is stored under, or null for a text no key can be (empty, or longer than
 * any key the CLI issues: such a text is not looked up).
 */
export function keyHashOf(plain: string): string | null {
  const key = plain.trim();
  return key === '' || key.length > MAX_KEY_LENGTH ? null : sha256Hex(key);
}

/**
 * The one lookup of an API key: by its SHA-256, revoked keys excluded. The API's authentication
 * (http/auth.ts) caches its answers for 5 s; the key tester asks it directly, so a key revoked a
 * moment ago already answers invalid there.
 */
export async function activeKey(db: AppContext['db'], hash: string): Promise<ActiveKey | null> {
  const [row] = await db
    .select({ keyId: apiKeys.id, accountId: accounts.id, accountName: accounts.name })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)));
  return row ?? null;
}

/** The account an API key acts for, or null when the key is unknown or revoked. */
export async function keyOwner(ctx: AppContext, plain: string): Promise<KeyOwner | null> {
  const hash = keyHashOf(plain);
  const key = hash === null ? null : await activeKey(ctx.db, hash);
  return key && { accountId: key.accountId, accountName: key.accountName };
}

/** What the key tester tells who asks: whose the key is for their own account, or for an administrator (roles.ts); another account's key is named to no one else. */
export type KeyCheck = { kind: 'invalid' } | ({ kind: 'own' | 'other-named' } & KeyOwner) | { kind: 'other' };

export async function checkKey({ ctx, actor, key }: { ctx: AppContext; actor: Actor; key: string }): Promise<KeyCheck> {
  const owner = await keyOwner(ctx, key);
  if (owner === null) return { kind: 'invalid' };
  if (owner.accountId === actor.accountId) return { kind: 'own', ...owner };
  return seesEveryAccount(actor) ? { kind: 'other-named', ...owner } : { kind: 'other' };
}
