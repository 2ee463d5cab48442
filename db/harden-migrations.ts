// Runs after `drizzle-kit generate`: rewrites the generated SQL so every statement is safe
// to re-run on a database that already has part of the schema.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, 'migrations');

export function harden(sql: string): string {
  return (
    sql
      .replace(/CREATE TABLE (?!IF NOT EXISTS)/g, 'CREATE TABLE IF NOT EXISTS ')
      .replace(/CREATE (UNIQUE )?INDEX (?!IF NOT EXISTS)/g, 'CREATE $1INDEX IF NOT EXISTS ')
      .replace(/ADD COLUMN (?!IF NOT EXISTS)/g, 'ADD COLUMN IF NOT EXISTS ')
      .replace(/DROP (COLUMN|CONSTRAINT|INDEX) (?!IF EXISTS)/g, 'DROP $1 IF EXISTS ')
      // A second primary key is refused as an invalid definition, not as a duplicate.
      .replace(
        /^(ALTER TABLE [^;]+ ADD CONSTRAINT [^;]+ PRIMARY KEY[^;]*);/gm,
        'DO $$$$ BEGIN $1; EXCEPTION WHEN duplicate_object OR duplicate_table OR invalid_table_definition THEN NULL; END $$$$;',
      )
      .replace(/^(ALTER TABLE [^;]+ ADD CONSTRAINT [^;]+);/gm, 'DO $$$$ BEGIN $1; EXCEPTION WHEN duplicate_object OR duplicate_table THEN NULL; END $$$$;')
  );
}

if (process.argv[1] === import.meta.filename) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
    const path = join(dir, file);
    const before = readFileSync(path, 'utf8');
    const after = harden(before);
    if (after !== before) writeFileSync(path, after);
  }
}
