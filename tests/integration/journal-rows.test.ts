import type { JournalEventName } from '../../src/journal/events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../db/client';
import { createJournal } from '../../src/journal/journal';
import { createTestDatabase } from '../helpers/db';

// The journal serialises each event once for its file line and its table row: both must say
// what the event said, the line exactly as JSON.stringify({ ...event, process }) writes it.

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let handle: DbHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

describe('journal rows and lines', () => {
  it('writes each event to the table and the file with the same fields and data', async () => {
    const logDir = mkdtempSync(join(tmpdir(), 'journal-rows-'));
    const journal = createJournal({ sql: handle.sql, logDir, processName: 'proc "1"' });
    const data = { text: 'ghilimele " și \\ linie\nnouă ăîșț 😀', n: 1.5, list: [1, null, true], nested: { a: { b: 'c' } } };
    journal.write({ event: 'e_full' as JournalEventName, level: 'warn', requestId: 'req-1', accountId: 7, submissionId: 42, data });
    journal.write({ event: 'e_bare' as JournalEventName });
    await journal.flush();

    const lines = readFileSync(join(logDir, 'proc "1".log'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const [full, bare] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toBe(JSON.stringify({ ...full, ts: new Date(full!.ts as string) }));
    expect(Object.keys(full!)).toEqual(['ts', 'event', 'level', 'requestId', 'accountId', 'submissionId', 'data', 'process']);
    expect(full).toMatchObject({ event: 'e_full' as JournalEventName, level: 'warn', requestId: 'req-1', accountId: 7, submissionId: 42, data, process: 'proc "1"' });
    expect(bare).toMatchObject({ event: 'e_bare' as JournalEventName, level: 'info', requestId: null, accountId: null, submissionId: null, data: null, process: 'proc "1"' });

    const rows = await handle.sql<
      { ts: Date | string; level: string; event: string; request_id: string | null; account_id: number | null; submission_id: string | null; data: unknown }[]
    >`
      SELECT ts, level, event, request_id, account_id, submission_id, data FROM app_events ORDER BY id`;
    expect(rows.map((r) => ({ ...r, ts: new Date(r.ts).toISOString() }))).toEqual([
      { ts: full!.ts, level: 'warn', event: 'e_full' as JournalEventName, request_id: 'req-1', account_id: 7, submission_id: '42', data },
      { ts: bare!.ts, level: 'info', event: 'e_bare' as JournalEventName, request_id: null, account_id: null, submission_id: null, data: null },
    ]);
  });
});
