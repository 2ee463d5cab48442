import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbedded } from '../../db/embedded';

// Issue 34: PostgreSQL's own log is kept (its output used to be dropped once it had started),
// in <cluster>/log, one file per weekday overwritten a week later (docs/operations-logs.md).

const dir = mkdtempSync(join(tmpdir(), 'gw-pglog-'));
chmodSync(dir, 0o755); // as root PostgreSQL runs as the postgres OS user
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the embedded PostgreSQL keeps its own log', () => {
  it('in <cluster>/log, by weekday, rotated daily and truncated a week later; what the server says after its start is in it', async () => {
    const db = await startEmbedded({ dataDir: join(dir, 'data') });
    const admin = postgres(db.adminUrl, { max: 1, onnotice: () => {} });
    try {
      const settings = Object.fromEntries(
        (
          await admin<{ name: string; setting: string }[]>`SELECT name, setting FROM pg_settings
            WHERE name IN ('logging_collector', 'log_directory', 'log_filename', 'log_rotation_age', 'log_truncate_on_rotation')`
        ).map((r) => [r.name, r.setting]),
      );
      expect(settings).toEqual({
        logging_collector: 'on',
        log_directory: 'log',
        log_filename: 'postgresql-%a.log',
        log_rotation_age: '1440',
        log_truncate_on_rotation: 'on',
      });
      const logDir = join(db.pgDir, 'log');
      const weekday = new Intl.DateTimeFormat('en-US', { weekday: 'short', timeZone: (await admin`SHOW log_timezone`)[0]!.log_timezone as string }).format(new Date());
      expect(readdirSync(logDir)).toEqual([`postgresql-${weekday}.log`]);
      const [{ current }] = (await admin`SELECT pg_current_logfile() AS current`) as unknown as [{ current: string }];
      expect(current).toBe(`log/postgresql-${weekday}.log`);
      expect(readFileSync(join(logDir, `postgresql-${weekday}.log`), 'utf8')).toContain('database system is ready to accept connections');

      // Something said after the start (an error of a query) lands in it too.
      await admin`SELECT gateway_no_such_function()`.catch(() => undefined);
      await admin`SELECT pg_rotate_logfile()`;
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(readFileSync(join(logDir, `postgresql-${weekday}.log`), 'utf8')).toMatch(/gateway_no_such_function/);
    } finally {
      await admin.end();
      await db.stop();
    }
    expect(existsSync(join(db.pgDir, 'postmaster.pid'))).toBe(false);
  });
});
