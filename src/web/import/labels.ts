import type { ImportBatchStatus, RowState } from '../../domain/import-state';
import type { ImportField } from '../../domain/import-header';

/** A row's state as the chips and the table name it. */
export const ROW_STATE_LABEL: Record<RowState, string> = {
  ok: 'Gata de trimis',
  needs_mapping: 'Cod nemapat',
  needs_data: 'Date de corectat',
  needs_review: 'De verificat',
  already_sent: 'Trimis deja',
  duplicate_in_file: 'Repetat în fișier',
  left_out: 'Lăsat deoparte',
};

/** Why a state is left out of the commit, or what happens to it there: for one row, and for several (the verb agrees). */
export const ROW_STATE_FATE: Record<RowState, { one: string; many: string }> = {
  ok: { one: 'se trimite registrului', many: 'se trimit registrului' },
  needs_data: {
    one: 'intră în Trimiteri ca „Date de completat” și nu pleacă până nu îl corectați',
    many: 'intră în Trimiteri ca „Date de completat” și nu pleacă până nu le corectați',
  },
  needs_mapping: {
    one: 'rămâne deoparte: codul operației nu are încă un cod al registrului (mapați-l mai sus)',
    many: 'rămân deoparte: codul operației nu are încă un cod al registrului (mapați-l mai sus)',
  },
  needs_review: {
    one: 'rămâne deoparte: kilometrajul este mai mic decât unul înregistrat deja (includeți-l mai sus dacă este corect)',
    many: 'rămân deoparte: kilometrajul este mai mic decât unul înregistrat deja (includeți-le mai sus dacă sunt corecte)',
  },
  already_sent: { one: 'rămâne deoparte: aceeași prezentare există deja în Trimiteri', many: 'rămân deoparte: aceeași prezentare există deja în Trimiteri' },
  duplicate_in_file: { one: 'rămâne deoparte: același rând apare mai sus în fișier', many: 'rămân deoparte: același rând apare mai sus în fișier' },
  left_out: {
    one: 'rămâne deoparte: nu este o prestație (total, notă, capul de tabel repetat) sau l-ați lăsat deoparte',
    many: 'rămân deoparte: nu sunt prestații (totaluri, note, capul de tabel repetat) sau le-ați lăsat deoparte',
  },
};

/**
 * Why a row of a committed import did not become a submission, by the state it has now (the
 * rows that did show their submission's state instead).
 */
export const LEFT_OUT_REASON: Record<RowState, string> = {
  ok: 'Nu era gata de trimis la confirmare',
  needs_data: 'Aceeași prezentare a fost trimisă între timp',
  needs_mapping: 'Codul operației nu avea un cod al registrului',
  needs_review: 'Kilometrajul este mai mic decât unul înregistrat deja',
  already_sent: 'Aceeași prezentare era deja în Trimiteri',
  duplicate_in_file: 'Același rând apare mai sus în fișier',
  left_out: 'Nu este o prestație, sau a fost lăsat deoparte',
};

export const BATCH_STATUS_LABEL: Record<ImportBatchStatus, string> = {
  queued: 'în așteptare',
  staging: 'se încarcă',
  staged: 'de verificat',
  committed: 'confirmat',
  failed: 'eșuat',
};

/** The file's columns can serve these fields, named as the clerk knows them. */
export const IMPORT_FIELD_LABEL: Record<ImportField, string> = {
  vin: 'Seria de șasiu (VIN)',
  nrInm: 'Nr. de înmatriculare',
  dataPrestatie: 'Data prestației',
  odometruInitial: 'Km la intrare',
  odometruFinal: 'Km la ieșire',
  cod_op_service: 'Codul operației (al dvs.)',
  denumire_op: 'Denumirea operației',
  cod_prestatie: 'Codul registrului',
};

/**
 * A screen shows this many characters of a file's text (a column's name, a sample, an operation's
 * name) at most, then an ellipsis: a header label of 32,767 characters repeated in a table, a
 * select's label and an error made a page of megabytes. What is stored stays whole.
 */
export const SHOWN_CHARS = 120;

export function clipped(text: string, max = SHOWN_CHARS): string {
  if (text.length <= max) return text;
  const end = max - 1;
  const code = text.charCodeAt(end - 1);
  // Never between the two halves of a surrogate pair.
  return `${text.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end)}…`;
}
