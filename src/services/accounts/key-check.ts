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

/**
 * The account an API key acts for, or null when the key is unknown or revoked: the same lookup
 * (by SHA-256, revoked keys excluded) the API's authentication makes, without its 5 s cache, so
 * a key revoked a moment ago already answers invalid here.
 */
export async function keyOwner(ctx: AppContext, plain: string): Promise<KeyOwner | null> {
  const key = plain.trim();
  if (key === '' || key.length > MAX_KEY_LENGTH) return null;
  const [row] = await ctx.db
    .select({ accountId: accounts.id, accountName: accounts.name })
    .from(apiKeys)
    .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
    .where(and(eq(apiKeys.keyHash, sha256Hex(key)), isNull(apiKeys.revokedAt)));
  return row ?? null;
}

/** What the key tester tells who asks: whose the key is for their own account, or for an administrator (roles.ts); another account's key is named to no one else. */
export type KeyCheck = { kind: 'invalid' } | ({ kind: 'own' | 'other-named' } & KeyOwner) | { kind: 'other' };

export async function checkKey({ ctx, actor, key }: { ctx: AppContext; actor: Actor; key: string }): Promise<KeyCheck> {
  const owner = await keyOwner(ctx, key);
  if (owner === null) return { kind: 'invalid' };
  if (owner.accountId === actor.accountId) return { kind: 'own', ...owner };
  return seesEveryAccount(actor) ? { kind: 'other-named', ...owner } : { kind: 'other' };
}
