import { isJournalEventName, JOURNAL_EVENTS } from '../../journal/events';

// The journal in words a workshop reads. The events' words live with the catalog
// (src/journal/events.ts); a name the catalog does not hold (an older journal's) shows as itself,
// so nothing is ever hidden.

export const EVENT_LABEL: Readonly<Record<string, string>> = JOURNAL_EVENTS;

export const LEVEL_LABEL: Record<string, string> = { debug: 'depanare', info: 'informare', warn: 'avertisment', error: 'eroare' };

export const eventLabel = (event: string): string => (isJournalEventName(event) ? JOURNAL_EVENTS[event] : event);
export const levelLabel = (level: string): string => LEVEL_LABEL[level] ?? level;
