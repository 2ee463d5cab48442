import type { Verdict } from '../../domain/classify';

const DAY_MS = 24 * 60 * 60 * 1000;
export const RETENTION_DAYS = 90;
export const BLOCKED_RETENTION_DAYS = 30;

/** Blocked submissions are kept 30 days; queued ones are never purged (the worker sets 90 days once sent). */
export function purgeAfterFor(status: Verdict | 'sent', now: Date): Date | null {
  if (status === 'queued') return null;
  const days = status === 'sent' ? RETENTION_DAYS : BLOCKED_RETENTION_DAYS;
  return new Date(now.getTime() + days * DAY_MS);
}
