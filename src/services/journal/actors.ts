import { and, eq, inArray, type SQL } from 'drizzle-orm';
import { apiKeys, webUsers } from '../../../db/schema';
import type { AppContext } from '../../context';
import { parseActorLabel, type JournalActorRef } from '../../journal/actor';

/** Who did what a journal row records, as the page names them. */
export type JournalActorName = { kind: 'user'; id: number; email: string | null } | { kind: 'key'; id: number; prefix: string | null } | { kind: 'account'; id: number };

/** The actor a row names: its `actor` label (journal/actor.ts), or the `user_id` sign-in events carry. */
export function actorRefOf(data: unknown): JournalActorRef | null {
  if (!data || typeof data !== 'object') return null;
  const d = data as Record<string, unknown>;
  const ref = parseActorLabel(d.actor);
  if (ref) return ref;
  return typeof d.user_id === 'number' && Number.isSafeInteger(d.user_id) ? { kind: 'user', id: d.user_id } : null;
}

/**
 * The e-mails of the users and the prefixes of the keys a page of the journal names, two
 * queries for the page (never one per row). `accountId` narrows them to the account, as the
 * rows a user sees are; an admin (null) sees every account's.
 */
export async function nameActors({ ctx, accountId, refs }: { ctx: AppContext; accountId: number | null; refs: Array<JournalActorRef | null> }) {
  const ids = (kind: 'user' | 'key') => [...new Set(refs.filter((r): r is JournalActorRef => r?.kind === kind).map((r) => r.id))];
  const userIds = ids('user');
  const keyIds = ids('key');
  const scoped = (where: SQL, accountColumn: typeof webUsers.accountId | typeof apiKeys.accountId) =>
    accountId === null ? where : (and(where, eq(accountColumn, accountId)) as SQL);
  const [users, keys] = await Promise.all([
    userIds.length === 0
      ? []
      : ctx.db
          .select({ id: webUsers.id, email: webUsers.email })
          .from(webUsers)
          .where(scoped(inArray(webUsers.id, userIds), webUsers.accountId)),
    keyIds.length === 0
      ? []
      : ctx.db
          .select({ id: apiKeys.id, prefix: apiKeys.prefix })
          .from(apiKeys)
          .where(scoped(inArray(apiKeys.id, keyIds), apiKeys.accountId)),
  ]);
  const emails = new Map(users.map((u) => [u.id, u.email]));
  const prefixes = new Map(keys.map((k) => [k.id, k.prefix]));
  return (ref: JournalActorRef | null): JournalActorName | null => {
    if (!ref) return null;
    if (ref.kind === 'user') return { kind: 'user', id: ref.id, email: emails.get(ref.id) ?? null };
    if (ref.kind === 'key') return { kind: 'key', id: ref.id, prefix: prefixes.get(ref.id) ?? null };
    return ref;
  };
}

/** Who acted, in words: "de maria@service.ro", "prin API (cheia gw_ab12…)"; '' for nobody named. */
export function actorWords(by: JournalActorName | null): string {
  if (by?.kind === 'user') return by.email ? `de ${by.email}` : `de utilizatorul #${by.id}`;
  if (by?.kind === 'key') return by.prefix ? `prin API (cheia ${by.prefix}…)` : `prin API (cheia #${by.id})`;
  if (by?.kind === 'account') return `prin API (contul ${by.id}, fără cheie)`;
  return '';
}
