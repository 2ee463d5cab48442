// Fields as the clerk knows them, never as the API spells them (`vin`, `dataPrestatie`): the
// correction form's labels and every message that names a field (the content errors listed in
// the panel, the form's own refusals) take their words from here.

import { STATUS_LABEL, isSubmissionStatus } from '../../domain/statuses';
import { showDate, showInstant } from './format';

export const FIELD_LABEL: Record<string, string> = {
  vin: 'Seria de șasiu (VIN)',
  nrInm: 'Nr. de înmatriculare',
  dataPrestatie: 'Data prestației',
  odometruInitial: 'Odometru inițial (km)',
  odometruFinal: 'Odometru final (km)',
  prestatii: 'Operații',
  b64Image: 'Fotografia',
};

/** `prestatii.2` is the third operation; an unknown field keeps its name rather than vanish. */
export function fieldLabel(field: string): string {
  const [base, index] = field.split('.');
  if (base === 'prestatii' && index !== undefined && /^\d+$/.test(index)) return `Operația ${Number(index) + 1}`;
  return FIELD_LABEL[base ?? field] ?? field;
}

// Only names written in camelCase or as the API's own keys: `vin` alone is also a Romanian word.
const NAME_IN_TEXT = /\b(nrInm|dataPrestatie|odometruInitial|odometruFinal|b64Image|prestatii)\b/g;

/** A message of the catalog (or the registry's) with the field names in it replaced by their labels. */
export function withFieldLabels(text: string): string {
  return text.replace(NAME_IN_TEXT, (name) => `„${FIELD_LABEL[name]}”`);
}

/**
 * What the catalog tells a program (its fields, headers and endpoints) said as the dashboard
 * does it: the API keeps these words (the spec's `erori`), the screens show these instead.
 */
const FOR_THE_CLERK: ReadonlyArray<[RegExp, string | ((...groups: string[]) => string)]> = [
  [/\s*\(n_to_commit\)/g, ''],
  [/\bn_to_commit\b/g, 'numărul de rânduri de trimis'],
  [/confirmați din nou cu noul rows_hash/g, 'confirmați din nou'],
  [/\brows_hash trimis nu corespunde rândurilor actuale/g, 'Rândurile confirmate nu mai sunt cele de acum'],
  [/\s*\(sau prin POST \/v1\/mapari\)/g, ''],
  [/ sau trimiteți reg_credentials/g, ''],
  [/GET \/v1\/import\/\{id\} \(sau previzualizarea\) arată status „staged”/g, 'pagina importului arată că tot fișierul este încărcat'],
  [/după motivul din câmpul error al importului/g, 'după motivul afișat'],
  [/trimiteți request_id echipei de suport/g, 'trimiteți echipei de suport codul de urmărire'],
  [/numărul de secunde din antetul Retry-After|secundele din antetul Retry-After/g, 'câteva secunde'],
  // The API's date form; the dashboard's fields take (and show) the Romanian one.
  [/\bAAAA-LL-ZZ\b/g, 'zz.ll.aaaa'],
  [/\bStarea (queued|needs_data|needs_mapping|sending|sent|error)\b/g, (_, status) => `Starea „${isSubmissionStatus(status) ? STATUS_LABEL[status] : status}”`],
];

const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/g;

/** A calendar date that exists; anything else (what a clerk typed wrong) is quoted as it is. */
function realDate(iso: string): boolean {
  const at = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === iso;
}

/**
 * A message as the clerk reads it on a screen: field names as labels, no API keys, headers or
 * endpoints, dates as zz.ll.aaaa and instants in Bucharest time.
 */
export function inClerkWords(text: string): string {
  let out = text;
  for (const [pattern, replacement] of FOR_THE_CLERK) out = out.replace(pattern, replacement as string);
  out = out.replace(ISO_INSTANT, (at) => {
    const when = new Date(at);
    return Number.isNaN(when.getTime()) ? at : showInstant(when);
  });
  out = out.replace(ISO_DATE, (iso) => (realDate(iso) ? showDate(iso) : iso));
  return withFieldLabels(out);
}
