import type { Sql } from '../../db/client';
import { createFileSink } from './file-sink';
import { describeError } from './describe-error';
import { redact } from './redact';

export interface JournalEvent {
  event: string;
  level?: 'debug' | 'info' | 'warn' | 'error';
  requestId?: string | null;
  accountId?: number | null;
  submissionId?: number | null;
  data?: Record<string, unknown>;
}

export interface Journal {
  write(event: JournalEvent): void;
  /** Resolves once everything written so far is in the table and the file. */
  flush(): Promise<void>;
}

const FLUSH_MS = 50;
const MAX_BUFFER = 500;

type Buffered = Required<Omit<JournalEvent, 'data'>> & { ts: Date; data: unknown };

interface Serialised {
  line: string;
  /** The table row up to its data: a row whose data the table refuses is written without it. */
  rowHead: string;
  data: string;
}

/**
 * An event as its file line and as its table row, its data serialised once for both (the
 * journal writes a row per API call). The line is what `JSON.stringify({ ...event, process })`
 * writes, field for field.
 */
function serialise(r: Buffered, processJson: string): Serialised {
  const data = JSON.stringify(r.data);
  const [ts, level, event, requestId, accountId, submissionId] = [r.ts, r.level, r.event, r.requestId, r.accountId, r.submissionId].map((v) => JSON.stringify(v));
  return {
    line: `{"ts":${ts},"event":${event},"level":${level},"requestId":${requestId},"accountId":${accountId},"submissionId":${submissionId},"data":${data},"process":${processJson}}`,
    rowHead: `{"ts":${ts},"level":${level},"event":${event},"request_id":${requestId},"account_id":${accountId},"submission_id":${submissionId},"data":`,
    data,
  };
}

/**
 * The application journal: `app_events` plus a rotating per-process file. Events are
 * redacted as they are written, then buffered and inserted in one statement per tick,
 * so journalling costs a request no round-trip of its own.
 */
export function createJournal(options: { sql: Sql; logDir: string; processName: string }): Journal {
  const file = createFileSink(options.logDir, options.processName);
  const processJson = JSON.stringify(options.processName);
  let buffer: Buffered[] = [];
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  async function drain() {
    timer = undefined;
    const rows = buffer;
    buffer = [];
    if (rows.length === 0) return;
    const events = rows.map((r) => serialise(r, processJson));
    file.write(`${events.map((e) => e.line).join('\n')}\n`);
    await insertIsolated(events);
  }

  // One parameter for the whole batch: a JSON array (of rows already serialised) expanded by Postgres.
  const insert = (rows: string[]) => options.sql`
    INSERT INTO app_events (ts, level, event, request_id, account_id, submission_id, data)
    SELECT ts, level, event, request_id, account_id, submission_id, data
    FROM jsonb_to_recordset(${`[${rows.join(',')}]`}::jsonb)
      AS x(ts timestamptz, level text, event text, request_id text, account_id integer, submission_id bigint, data jsonb)`;

  /**
   * A failed batch is split and retried, so no event is lost because of another; an event
   * that fails alone is kept without its data (the file has it whole).
   */
  async function insertIsolated(batch: Serialised[]): Promise<void> {
    try {
      await insert(batch.map((e) => `${e.rowHead}${e.data}}`));
    } catch (error) {
      if (batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await insertIsolated(batch.slice(0, half));
        await insertIsolated(batch.slice(half));
        return;
      }
      const failure = describeError(error);
      // The file still has the event; a journal failure must never fail the request.
      file.write(`${JSON.stringify({ ts: new Date(), level: 'error', event: 'journal_write_failed', error: failure })}\n`);
      if (batch[0]!.data === 'null') return;
      await insert([`${batch[0]!.rowHead}${JSON.stringify({ jurnal: 'date_neinregistrabile', sqlstate: failure.sqlstate ?? null })}}`]).catch(() => undefined);
    }
  }

  function schedule() {
    inFlight = inFlight.then(drain);
    return inFlight;
  }

  return {
    write(event) {
      buffer.push({
        ts: new Date(),
        event: event.event,
        level: event.level ?? 'info',
        requestId: event.requestId ?? null,
        accountId: event.accountId ?? null,
        submissionId: event.submissionId ?? null,
        data: event.data ? redact(event.data) : null,
      });
      if (buffer.length >= MAX_BUFFER) void schedule();
      else timer ??= setTimeout(() => void schedule(), FLUSH_MS);
    },
    async flush() {
      if (timer) clearTimeout(timer);
      await schedule();
    },
  };
}
