import { createHash } from 'node:crypto';
import type { Child } from 'hono/jsx';
import type { SubmissionRecord } from '../../services/submissions/read';

/** What the panel shows that the worker or another clerk can change: its version for the panel's poll. */
export function panelVersion(record: SubmissionRecord, attempts: number): string {
  return createHash('sha256').update(`${record.id}:${record.status}:${record.updatedAt.toISOString()}:${attempts}`).digest('base64url').slice(0, 22);
}

/**
 * The open panel as a poller of itself (every 5 s; app.js sends the version as If-None-Match
 * and skips a hidden page), so its state chip and actions follow the submission while the list
 * itself stays still under the reader.
 */
export function LivePanel({ record, attempts, children }: { record: SubmissionRecord; attempts: number; children: Child }) {
  return (
    <div class="live-panel" data-poll-panel data-version={panelVersion(record, attempts)} hx-get={`/_fragments/trimitere/${record.id}`} hx-trigger="every 5s" hx-target="#panou">
      {children}
    </div>
  );
}
