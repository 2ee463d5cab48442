import { createHash } from 'node:crypto';
import { formatDate } from './dates';
import { isSubmissionStatus, STATUS_LABEL } from './statuses';

/** An import batch: `queued` until a stager takes its file, `staging` while it stages it (the first rows already show). */
export type ImportBatchStatus = 'queued' | 'staging' | 'staged' | 'committed' | 'failed';

/** Import preview row states, computed at every preview from content, mappings and history. */
export const ROW_STATES = ['ok', 'needs_mapping', 'needs_data', 'needs_review', 'already_sent', 'duplicate_in_file', 'left_out'] as const;
export type RowState = (typeof ROW_STATES)[number];

/** The states whose rows a commit stores: ready rows queue, invalid ones are held as needs_data. */
export const COMMITTED_STATES: ReadonlySet<RowState> = new Set(['ok', 'needs_data']);

export interface OdometerReading {
  data: string;
  odometru: number;
}

type RowVerdict = 'queued' | 'needs_data' | 'needs_mapping';

/**
 * The service visit a line belongs to (lines with the same VIN, date and odometers: one record).
 * A line alone is a visit of one line.
 */
export interface VisitFacts {
  /** The visit's verdict: needs_data if a line's is, else needs_mapping if a line's is, else queued. */
  verdict: RowVerdict;
  /** Its lines name two plates: held for the clerk. */
  disagrees: boolean;
  /** A submission of the account already queued or sent with the visit's record (VIN, date, odometer, set of codes). */
  existing: { id: number; status: string } | null;
}

export interface RowFacts {
  /** The classification verdict (never `error`: an import does not reject unmapped codes). */
  verdict: RowVerdict;
  /** Why the line is left out (no service, or left out by hand), or null. */
  leftOut?: string | null;
  /** Absent for a line that is a visit alone. */
  visit?: VisitFacts;
  /** A stored submission with this row's key (either key form), if any. */
  existing: { id: number; status: string } | null;
  /** The first earlier row of the file with the same key, if any. */
  duplicateOf: number | null;
  /** The highest odometer recorded for this VIN on or before this row's date, if any. */
  recorded: OdometerReading | null;
  odometruFinal: number | null;
  includeReview: boolean;
}

export interface RowStateResult {
  state: RowState;
  /** Set when the odometer is lower than one already recorded (held, or included by the user). */
  review: (OdometerReading & { inclus: boolean }) | null;
}

/**
 * The rules of a row's state. The preview applies them in SQL over the whole batch
 * (services/import/states.ts); a test holds the two equal on generated rows.
 * Precedence: a line that is no service (or that the clerk left out) is `left_out`; a row already
 * stored, or whose visit's record is, is `already_sent` whatever else holds; a repeat inside the
 * file is `duplicate_in_file`; then the visit's verdict; a visit whose lines name two plates is
 * held as `needs_review`; a row that would be ready but reads less than a recorded odometer is
 * held as `needs_review` until the user includes it.
 */
export function rowState(facts: RowFacts): RowStateResult {
  const visit = facts.visit ?? { verdict: facts.verdict, disagrees: false, existing: null };
  if (facts.leftOut) return { state: 'left_out', review: null };
  if (facts.existing || visit.existing) return { state: 'already_sent', review: null };
  if (facts.duplicateOf !== null) return { state: 'duplicate_in_file', review: null };
  // A visit is one record: what holds one of its lines holds them all.
  if (visit.verdict === 'needs_data') return { state: 'needs_data', review: null };
  if (visit.verdict === 'needs_mapping') return { state: 'needs_mapping', review: null };
  if (visit.disagrees) return { state: 'needs_review', review: null };
  const { recorded, odometruFinal } = facts;
  if (recorded && odometruFinal !== null && odometruFinal < recorded.odometru) {
    return { state: facts.includeReview ? 'ok' : 'needs_review', review: { ...recorded, inclus: facts.includeReview } };
  }
  return { state: 'ok', review: null };
}

/**
 * The highest reading on or before `date`. A lower reading at a later date is a possible
 * rollback; an older service entered late is not.
 */
export function highestReadingUpTo(readings: readonly OdometerReading[] | undefined, date: string): OdometerReading | null {
  let best: OdometerReading | null = null;
  for (const reading of readings ?? []) {
    if (reading.data <= date && (!best || reading.odometru > best.odometru)) best = reading;
  }
  return best;
}

export interface HashedRow {
  rowIndex: number;
  state: RowState;
  key: string;
  codes: readonly string[];
  /** The line's visit (its first line, how many lines), or null for a line left out. */
  visit: { head: number; lines: number } | null;
}

/**
 * `rows_hash`: what the user was shown, row by row: its state, its content (through the
 * idempotency key, which covers every canonical value), the registry codes it resolved to and,
 * for a line of a visit of several lines, that visit (its first line): the lines the commit
 * makes one record of. Any edit, mapping, newly stored duplicate or other grouping changes it,
 * so a commit confirms those values. A line alone adds nothing for its visit: a file without
 * visits of several lines hashes as before visits were grouped, and a server that does not
 * group them (an earlier release, during a rolling upgrade) computes another hash for a file
 * that has some, so it refuses to commit this version's preview line by line.
 */
export function createRowsHasher() {
  const hash = createHash('sha256');
  return {
    add(row: HashedRow) {
      const visit = row.visit && row.visit.lines > 1 ? `\t${row.visit.head}` : '';
      hash.update(`${row.rowIndex}\t${row.state}\t${row.key}\t${row.codes.join(',')}${visit}\n`);
    },
    digest: () => hash.digest('hex'),
  };
}

export function emptyCounts(): Record<RowState, number> {
  return { ok: 0, needs_mapping: 0, needs_data: 0, needs_review: 0, already_sent: 0, duplicate_in_file: 0, left_out: 0 };
}

export interface OutcomeForReason {
  state: RowState;
  existing: { id: number; status: string } | null;
  duplicateOf: number | null;
  review: (OdometerReading & { inclus: boolean }) | null;
  odometruFinal: number | null;
  leftOut: string | null;
  /** The line's visit: its first line and how many lines it has. */
  visit: { head: number; lines: number; disagrees: boolean } | null;
}

const shownStatus = (status: string | undefined) => (status && isSubmissionStatus(status) ? STATUS_LABEL[status].toLowerCase() : status);

/** Why a row is in its state, in the words the dashboard and the failed-rows CSV use. */
export function stateReason(outcome: OutcomeForReason, verdictMotiv: string | null): string | null {
  switch (outcome.state) {
    case 'left_out':
      return outcome.leftOut;
    case 'already_sent':
      return `Există deja: prezentarea #${outcome.existing?.id} (${shownStatus(outcome.existing?.status)}).`;
    case 'duplicate_in_file':
      return `Identic cu rândul ${outcome.duplicateOf} din fișier.`;
    case 'needs_review':
      if (outcome.visit?.disagrees)
        return `Rândurile vizitei de la rândul ${outcome.visit.head} au numere de înmatriculare diferite; corectați numărul sau lăsați deoparte rândul greșit.`;
      return `Odometrul ${outcome.odometruFinal} este mai mic decât ${outcome.review?.odometru} înregistrat pentru acest VIN la ${formatDate(outcome.review?.data ?? null)}; includeți rândul explicit dacă valoarea este corectă.`;
    case 'ok':
      return outcome.review ? `Inclus după verificare: odometrul este mai mic decât ${outcome.review.odometru} înregistrat la ${formatDate(outcome.review.data)}.` : null;
    default:
      // A line ready by itself, held with its visit for another line's reason.
      if (verdictMotiv === null && outcome.visit && outcome.visit.lines > 1) {
        return `Face parte din vizita de la rândul ${outcome.visit.head}, în care un alt rând ${outcome.state === 'needs_mapping' ? 'are un cod de mapat' : 'are date de corectat'}.`;
      }
      return verdictMotiv;
  }
}
