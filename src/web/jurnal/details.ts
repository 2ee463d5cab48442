// What a journal event holds, as "label: value" pairs a workshop reads: the keys its writers
// use (services, routes, worker) named in Romanian, states and row states by their screen
// names. A key not listed shows its own name, spaced, so nothing new is ever hidden.

import { BATCH_STATUS_LABEL, ROW_STATE_LABEL } from '../import/labels';
import { STATUS_LABEL, isSubmissionStatus } from '../../domain/statuses';
import { inClerkWords } from '../ui/field-labels';

const KEY_LABEL: Record<string, string> = {
  op: 'operația',
  method: 'metoda',
  path: 'adresa',
  http_status: 'răspuns HTTP',
  status: 'starea',
  from: 'din starea',
  to: 'în starea',
  bulk: 'în grup',
  action: 'acțiunea',
  count: 'număr',
  submission_id: 'trimiterea',
  batch_id: 'importul',
  batch_ids: 'importurile',
  row_index: 'rândul',
  rows: 'rânduri',
  rows_in_thread: 'rânduri încărcate în fundal',
  ms: 'durata (ms)',
  kind: 'tipul fișierului',
  size: 'mărimea (octeți)',
  n_confirmed: 'rânduri confirmate',
  inserted: 'rânduri intrate în Trimiteri',
  counts: 'rândurile după stare',
  fields: 'câmpurile',
  include: 'inclus',
  duplicate: 'repetată',
  reactivated: 'reactivată',
  nemapate: 'coduri nemapate',
  cod: 'codul',
  cauza: 'cauza',
  error: 'eroarea',
  cleanup: 'curățarea',
  cod_op_service: 'codul operației',
  cod_prestatie: 'codul registrului',
  cod_vechi: 'codul vechi',
  cod_client: 'codul clientului',
  rule_id: 'regula',
  id: 'nr.',
  pattern: 'textul regulii',
  repuse_in_coada: 'repuse în coadă',
  on_unmapped_error_default: 'refuză codurile nemapate',
  rezultat: 'rezultatul',
  user_id: 'utilizatorul',
  adresa: 'adresa IP',
  dispozitiv_cunoscut: 'dispozitiv cunoscut',
  outcome: 'rezultatul',
  latency_ms: 'durata (ms)',
  expires_in_s: 'valabilă (s)',
  mesaj_registru: 'mesajul registrului',
  attempt: 'încercarea',
  registry_id: 'nr. în registru',
  next_attempt_in_s: 'următoarea încercare peste (s)',
  reconcile_first: 'verificare în registru întâi',
  worker_id: 'lucrătorul',
  stale_worker_id: 'lucrătorul oprit',
  stale_after_s: 'blocată după (s)',
  settings: 'setările',
  seconds: 'secunde',
  failed_attempts: 'încercări eșuate',
  codes: 'coduri',
  deleted: 'șterse',
  retention_days: 'păstrare (zile)',
  task: 'sarcina',
  source: 'sursa',
  reason: 'motivul',
  date_from: 'de la data',
  date_to: 'până la data',
  format: 'formatul',
};

/** The words some writers store as values (an operation, a key check's result). */
const VALUE_WORD: Record<string, string> = {
  commit: 'confirmare',
  upload: 'încărcare',
  create: 'trimitere nouă',
  dry_run: 'verificare fără salvare',
  list: 'listare',
  get: 'citire',
  delete: 'ștergere',
  requeue: 'repunere în coadă',
  column_mapping: 'maparea coloanelor',
  invalida: 'invalidă',
  contul_propriu: 'contul propriu',
  alt_cont: 'alt cont',
};

const spaced = (key: string) => key.replace(/_/g, ' ');
export const detailLabel = (key: string): string => KEY_LABEL[key] ?? spaced(key);

const rowState = (text: string) => (Object.hasOwn(ROW_STATE_LABEL, text) ? ROW_STATE_LABEL[text as keyof typeof ROW_STATE_LABEL] : undefined);
const batchStatus = (text: string) => (Object.hasOwn(BATCH_STATUS_LABEL, text) ? BATCH_STATUS_LABEL[text as keyof typeof BATCH_STATUS_LABEL] : undefined);

/** A value that is a state (of a submission, an import) read as the screens name it. */
function word(text: string): string {
  if (isSubmissionStatus(text)) return STATUS_LABEL[text];
  return rowState(text) ?? batchStatus(text) ?? VALUE_WORD[text] ?? inClerkWords(text);
}

/** A key of a nested object: a row state when it is one (an import's counts), else a key like any other. */
const innerLabel = (key: string) => rowState(key)?.toLowerCase() ?? (isSubmissionStatus(key) ? STATUS_LABEL[key].toLowerCase() : detailLabel(key));

function valueText(value: unknown, depth: number): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'da' : 'nu';
  // Numbers as they are: most are ids, which a clerk searches for as written.
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value === '' ? '—' : word(value);
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map((v) => valueText(v, depth + 1)).join(', ');
  if (typeof value === 'object') {
    const pairs = Object.entries(value as Record<string, unknown>);
    if (pairs.length === 0) return '—';
    // A nested object (a row count per state, the worker's settings) reads as its own pairs.
    const inner = pairs.map(([k, v]) => `${innerLabel(k)}: ${valueText(v, depth + 1)}`).join(', ');
    return depth > 0 ? `(${inner})` : inner;
  }
  return String(value);
}

/** The pairs of an event's data, in the order stored (jsonb's: shorter keys first); `actor` has its own column. */
export function detailPairs(data: unknown): Array<[string, string]> {
  if (data === null || data === undefined) return [];
  if (typeof data !== 'object' || Array.isArray(data)) return [['detalii', valueText(data, 0)]];
  return Object.entries(data as Record<string, unknown>)
    .filter(([key]) => key !== 'actor')
    .map(([key, value]) => [detailLabel(key), valueText(value, 0)]);
}
