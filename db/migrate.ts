import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type postgres from 'postgres';
import { FALLBACK_NOMENCLATOR } from './fallback-nomenclator';

const MIGRATIONS_DIR = join(import.meta.dirname, 'migrations');
// Any constant: server, worker and CLI may start together; one of them migrates at a time.
const MIGRATION_LOCK = 727_001;

interface JournalEntry {
  tag: string;
}

/** The committed migrations' tags, in the order they apply. */
export function migrationTags(): string[] {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as {
    entries: JournalEntry[];
  };
  return journal.entries.map((e) => e.tag);
}

/**
 * Applies the committed drizzle-kit migrations in order, each once, in its own
 * transaction, then loads the fallback nomenclator. The SQL itself is additive and
 * idempotent (see harden-migrations.ts), so an older or partly migrated database is
 * upgraded without data loss.
 */
export async function migrate(sql: postgres.Sql): Promise<string[]> {
  return sql.begin((tx) => applyMigrations(tx));
}

/**
 * migrate's work inside a transaction the caller holds. A restore (src/backup/restore.ts)
 * stops at its archive's migration (`upTo`, a tag) and loads no nomenclator (`seed`), to load
 * the archive's rows into the schema they were read from before migrating them further.
 */
export async function applyMigrations(tx: postgres.TransactionSql, options: { upTo?: string; seed?: boolean } = {}): Promise<string[]> {
  const tags = migrationTags();
  const last = options.upTo === undefined ? tags.length - 1 : tags.indexOf(options.upTo);
  if (last < 0) throw new Error(`unknown migration ${options.upTo}`);
  const applied: string[] = [];
  await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
  await tx`CREATE TABLE IF NOT EXISTS gateway_migrations (
    tag text PRIMARY KEY, hash text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`;
  const done = new Map((await tx<{ tag: string; hash: string }[]>`SELECT tag, hash FROM gateway_migrations`).map((r) => [r.tag, r.hash]));
  for (const tag of tags.slice(0, last + 1)) {
    const text = readFileSync(join(MIGRATIONS_DIR, `${tag}.sql`), 'utf8');
    const hash = createHash('sha256').update(text).digest('hex');
    // A file whose content changed since it was applied runs again: every statement is
    // idempotent, so a database migrated by an earlier build catches up.
    if (done.get(tag) === hash) continue;
    for (const statement of text.split('--> statement-breakpoint')) {
      if (statement.trim()) await tx.unsafe(statement);
    }
    await tx`INSERT INTO gateway_migrations (tag, hash) VALUES (${tag}, ${hash})
             ON CONFLICT (tag) DO UPDATE SET hash = EXCLUDED.hash, applied_at = now()`;
    applied.push(tag);
  }
  if (options.seed === false) return applied;
  for (const { cod, denumire } of FALLBACK_NOMENCLATOR) {
    await tx`INSERT INTO nomenclator (cod, denumire, source) VALUES (${cod}, ${denumire}, 'fallback')
             ON CONFLICT (cod) DO NOTHING`;
  }
  return applied;
}
