import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { inject } from 'vitest';
import { databaseUrl } from './db';

const ROOT = new URL('../..', import.meta.url).pathname;

export const BACKUP_PASSPHRASE = 'o parolă de backup lungă';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One of the operations tools (src/cli/<tool>.ts) as a process, with only `env` (and PATH, HOME);
 * `built`: its dist/<tool>.js, as `npm run <tool>` runs it (after buildDist()).
 */
export function runTool(tool: 'backup' | 'restore' | 'rotate-key', args: string[], env: Record<string, string>, timeoutMs = 120_000, built = false): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...(built ? [`dist/${tool}.js`] : ['--import', 'tsx', `src/cli/${tool}.ts`]), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, timeout: timeoutMs, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** A database with nothing in it (not the migrated template): what a restore wants. */
export async function createEmptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `r_${randomBytes(6).toString('hex')}`;
  const admin = postgres(inject('adminDatabaseUrl'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: databaseUrl(name),
    drop: async () => {
      const a = postgres(inject('adminDatabaseUrl'), { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/** Every row of every table of the connection's schema, as text, sorted: two databases compared whole. */
export async function tableRows(sql: postgres.Sql): Promise<Map<string, string[]>> {
  const tables = await sql<{ name: string }[]>`
    SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname <> 'gateway_migrations' ORDER BY 1`;
  const all = new Map<string, string[]>();
  for (const { name } of tables) {
    const rows = await sql.unsafe<{ row: string }[]>(`SELECT t::text AS row FROM "${name}" t ORDER BY 1`);
    all.set(
      name,
      rows.map((r) => r.row),
    );
  }
  return all;
}
