import type { Sql } from '../../db/client';
import { isDatabaseUnavailable } from '../../db/unavailable';
import { createFileSink } from './file-sink';
import { describeError } from './describe-error';
import type { JournalEventName } from './events';
import { redact } from './redact';

export interface JournalEvent {
  /** A name of the catalog (events.ts): the compiler refuses any other. */
  event: JournalEventName;
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
const RETRY_MS = 1_000;
const MAX_UNSAVED = 10_000;

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
 * so journalling costs a request no round-trip of its own. While the database cannot be
 * reached the file still gets every event at once and the table gets them when it is back.
 */
export function createJournal(options: { sql: Sql; logDir: string; processName: string }): Journal {
  const file = createFileSink(options.logDir, options.processName);
  const processJson = JSON.stringify(options.processName);
  let buffer: Buffered[] = [];
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  /** Rows already in the file that the table did not take because the database could not be reached. */
  let unsaved: Serialised[] = [];
  let retry: NodeJS.Timeout | undefined;
  /** Set from the first deferred write to the next that succeeds: the file notes an outage once. */
  let deferring = false;

  async function drain() {
    timer = undefined;
    const rows = buffer;
    buffer = [];
    const events = rows.map((r) => serialise(r, processJson));
    if (events.length > 0) file.write(`${events.map((e) => e.line).join('\n')}\n`);
    const waiting = unsaved;
    unsaved = [];
    if (waiting.length + events.length === 0) return;
    await insertIsolated([...waiting, ...events]);
  }

  /**
   * The database is away (a restart, a failover): the rows wait, in order, for the next try a
   * second later, at most MAX_UNSAVED of them (the oldest go first; the file keeps them all).
   */
  function keepForLater(batch: Serialised[]) {
    if (!deferring) {
      deferring = true;
      file.write(`${JSON.stringify({ ts: new Date(), level: 'warn', event: 'journal_write_deferred', process: options.processName })}\n`);
    }
    unsaved = [...unsaved, ...batch].slice(-MAX_UNSAVED);
    retry ??= setTimeout(() => {
      retry = undefined;
      void schedule();
    }, RETRY_MS);
    // A process that stops meanwhile does not wait for it.
    retry.unref();
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
      deferring = false;
    } catch (error) {
      // Split only for a row the database refuses; one it cannot be asked about waits whole.
      if (isDatabaseUnavailable(error)) return keepForLater(batch);
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
