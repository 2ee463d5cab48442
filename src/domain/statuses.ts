// Submission states (spec, "Submission states") and what each allows: one place for the API,
// the services and the dashboard.

export const SUBMISSION_STATUSES = ['queued', 'needs_data', 'needs_mapping', 'sending', 'sent', 'error'] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

/** The states that wait for the workshop by themselves (part of "De rezolvat", see isToResolve). */
export const TO_RESOLVE = ['needs_data', 'needs_mapping', 'error'] as const satisfies readonly SubmissionStatus[];

/**
 * The reg_error code the worker leaves on a queued submission while no registry credentials
 * exist for it (worker/failures.ts): it stays queued, but nothing moves until the workshop
 * saves credentials, so it is theirs to resolve too.
 */
export const CREDENTIAL_WAIT = { status: 'queued', cod: 'REG_CREDENTIALE_LIPSA' } as const;

/**
 * The dashboard's default view, "De rezolvat": what waits for the workshop. One rule for the
 * count, the list and the bulk actions; the SQL twin (services/submissions/dashboard.ts) is
 * built from the same two constants.
 */
export function isToResolve(status: SubmissionStatus, regErrorCod: string | null | undefined): boolean {
  return (TO_RESOLVE as readonly string[]).includes(status) || (status === CREDENTIAL_WAIT.status && regErrorCod === CREDENTIAL_WAIT.cod);
}

/** Not in flight and not in the registry. */
export const DELETABLE = ['queued', 'needs_data', 'needs_mapping', 'error'] as const satisfies readonly SubmissionStatus[];

export type SubmissionAction = 'delete' | 'requeue' | 'correct' | 'map';

const ALLOWED: Record<SubmissionStatus, readonly SubmissionAction[]> = {
  queued: ['delete'],
  needs_data: ['delete', 'requeue', 'correct'],
  needs_mapping: ['delete', 'requeue', 'map'],
  error: ['delete', 'requeue'],
  sending: [],
  sent: [],
};

export function allows(status: SubmissionStatus, action: SubmissionAction): boolean {
  return ALLOWED[status].includes(action);
}

/**
 * reg_error codes that mean the registry refused the record's content (worker/failures.ts: a
 * 400 or 422 answer to the send): such an error is corrected like `needs_data`, not requeued as
 * it is, because the same content would be refused again.
 */
export const CONTENT_REG_ERRORS: readonly string[] = ['REG_CONTINUT_RESPINS'];

/**
 * The one rule for whether a submission's fields may be corrected in the dashboard: a state
 * that allows it, or an error whose cause is its content.
 */
export function allowsCorrection(record: { status: SubmissionStatus; regErrorCod: string | null }): boolean {
  if (allows(record.status, 'correct')) return true;
  return record.status === 'error' && record.regErrorCod !== null && CONTENT_REG_ERRORS.includes(record.regErrorCod);
}

export function isSubmissionStatus(value: string): value is SubmissionStatus {
  return (SUBMISSION_STATUSES as readonly string[]).includes(value);
}

/** Why an action is refused in a state (the 409's cause), in Romanian. */
export function refusal(status: SubmissionStatus, action: 'delete' | 'requeue'): string {
  if (status === 'sending') return 'Trimiterea este în curs către registru; încercați după ce se termină.';
  if (status === 'sent') return 'Înregistrarea este deja în registru; nu mai poate fi ștearsă sau repusă.';
  if (status === 'queued' && action === 'requeue') return 'Trimiterea este deja în coadă.';
  return `Starea ${status} nu permite ${action === 'delete' ? 'ștergerea' : 'repunerea în coadă'}.`;
}

/** Romanian labels for the dashboard's chips. */
export const STATUS_LABEL: Record<SubmissionStatus, string> = {
  queued: 'În coadă',
  needs_data: 'Date de completat',
  needs_mapping: 'Cod de mapat',
  sending: 'Se trimite',
  sent: 'Trimisă',
  error: 'Eroare',
};
