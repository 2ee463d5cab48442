import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RELEASE_LAST_MIGRATION } from '../helpers/old-release';

// During a rolling upgrade the previous release keeps serving on a database this version has
// migrated (docs/operations-upgrade.md), so every migration after the release's last one must
// leave its schema working for it: tables, columns, types and constraints it writes stay as
// they are; new columns are nullable or have a default. The upgrade test
// (tests/integration/upgrade-from-release.test.ts) runs the release on such a database; this
// check reads every migration since, statement by statement, and names what would break it.
// A statement reviewed as safe for the release (a table of this version's own, say) is marked
// by a line `-- release-compatible: <why>` right above it.

const MIGRATIONS = join(import.meta.dirname, '..', '..', 'db', 'migrations');

const tags = (JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> }).entries.map((e) => e.tag);
const sqlOf = (tag: string) => readFileSync(join(MIGRATIONS, `${tag}.sql`), 'utf8');

/** The tables the release's migrations create: a constraint added to one of them binds the release's writes. */
function tablesCreated(sql: string): Set<string> {
  return new Set([...sql.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?"?([\w.]+)"?/gi)].map((m) => m[1]!.toLowerCase()));
}

const BREAKING: Array<[RegExp, string]> = [
  [
    /\bDROP\s+(TABLE|COLUMN|VIEW|MATERIALIZED\s+VIEW|FUNCTION|TRIGGER|TYPE|SCHEMA|INDEX|CONSTRAINT)\b/i,
    'drops something the release may read, write or rely on (a unique index its ON CONFLICT names)',
  ],
  [/\bRENAME\b/i, 'renames something the release names in its queries'],
  [/\bALTER\s+COLUMN\s+\S+\s+(SET\s+DATA\s+)?TYPE\b/i, 'changes a column type the release reads and writes'],
  [/\bSET\s+NOT\s+NULL\b/i, 'makes a column required that the release may leave empty'],
  [/\bADD\s+COLUMN\b(?:(?!\bDEFAULT\b)[^;])*\bNOT\s+NULL\b(?:(?!\bDEFAULT\b)[^;])*(?:;|$)/i, 'adds a required column without a default: the release’s inserts do not fill it'],
  [/\bTRUNCATE\b/i, 'empties a table'],
];

/** Why `statement` would break the release on this database, or null. `releaseTables`: the tables it created. */
function breaksRelease(statement: string, releaseTables: ReadonlySet<string>): string | null {
  const code = statement.replace(/--[^\n]*/g, '').trim();
  if (code === '') return null;
  for (const [pattern, why] of BREAKING) if (pattern.test(code)) return why;
  const table = /\b(?:ALTER\s+TABLE(?:\s+ONLY)?|ON)\s+"?([\w.]+)"?/i.exec(code)?.[1]?.toLowerCase();
  if (table && releaseTables.has(table)) {
    if (/\bADD\s+CONSTRAINT\s+\S+\s+(CHECK|UNIQUE|EXCLUDE|PRIMARY\s+KEY|FOREIGN\s+KEY)\b/i.test(code))
      return `adds a constraint to ${table}, which the release writes without knowing it`;
    if (/\bCREATE\s+UNIQUE\s+INDEX\b/i.test(code)) return `adds a unique index to ${table}, which may refuse the release’s writes`;
    if (/\bCREATE\s+(OR\s+REPLACE\s+)?TRIGGER\b/i.test(code)) return `adds a trigger on ${table}, which runs on the release’s writes`;
  }
  return null;
}

/** Each statement of a migration that would break the release, with the reason; reviewed ones left out. */
function findBreaking(sql: string, releaseTables: ReadonlySet<string>): string[] {
  return sql
    .split('--> statement-breakpoint')
    .filter((statement) => !/^\s*-- release-compatible:/m.test(statement))
    .flatMap((statement) => {
      const why = breaksRelease(statement, releaseTables);
      return why ? [`${statement.trim().slice(0, 160)} — ${why}`] : [];
    });
}

describe('migrations since the release the upgrade test starts', () => {
  const last = tags.indexOf(RELEASE_LAST_MIGRATION);
  const releaseTables = tablesCreated(
    tags
      .slice(0, last + 1)
      .map(sqlOf)
      .join('\n'),
  );

  it('are additive: the release keeps working on a database they migrated', () => {
    expect(last).toBeGreaterThanOrEqual(0);
    expect(releaseTables).toContain('submissions');
    const found = tags.slice(last + 1).flatMap((tag) => findBreaking(sqlOf(tag), releaseTables).map((line) => `${tag}: ${line}`));
    expect(found).toEqual([]);
  });

  it('the check names each kind of change that breaks the release, and lets additive ones pass', () => {
    const tables = new Set(['submissions', 'import_rows']);
    const breaking = [
      'ALTER TABLE "submissions" DROP COLUMN IF EXISTS "motiv";',
      'ALTER TABLE "submissions" RENAME COLUMN "motiv" TO "reason";',
      'ALTER TABLE "submissions" ALTER COLUMN "attempts" SET DATA TYPE bigint;',
      'ALTER TABLE "import_rows" ALTER COLUMN "plate_missing" SET NOT NULL;',
      'ALTER TABLE "submissions" ADD COLUMN IF NOT EXISTS "origin" text NOT NULL;',
      'DROP INDEX IF EXISTS "submissions_idem_key";',
      'DO $$ BEGIN ALTER TABLE "submissions" ADD CONSTRAINT "odo" CHECK ("odometru_final" > 0); EXCEPTION WHEN duplicate_object THEN NULL; END $$;',
      'CREATE UNIQUE INDEX IF NOT EXISTS "one_vin" ON "submissions" USING btree ("vin");',
    ];
    for (const statement of breaking) expect(breaksRelease(statement, tables), statement).not.toBeNull();
    const additive = [
      'ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "reg_creds_refused_epoch" integer;',
      'ALTER TABLE "submissions" ADD COLUMN IF NOT EXISTS "origin" text DEFAULT \'api\' NOT NULL;',
      'CREATE TABLE IF NOT EXISTS "key_ids" ("id" text PRIMARY KEY NOT NULL);',
      'CREATE INDEX IF NOT EXISTS "import_rows_visit" ON "import_rows" USING btree ("batch_id","visit_key");',
      'DO $$ BEGIN ALTER TABLE "key_ids" ADD CONSTRAINT "fk" FOREIGN KEY ("a") REFERENCES "accounts"("id"); EXCEPTION WHEN duplicate_object THEN NULL; END $$;',
    ];
    for (const statement of additive) expect(breaksRelease(statement, tables), statement).toBeNull();
    expect(findBreaking(`-- release-compatible: a table of this version's own\nDROP TABLE "scratch";`, tables)).toEqual([]);
  });
});
