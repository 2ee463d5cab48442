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

/** Why a state is left out of the commit, or what happens to it there. */
export const ROW_STATE_FATE: Record<RowState, string> = {
  ok: 'se trimit registrului',
  needs_data: 'intră în Trimiteri ca „Date de completat” și nu pleacă până nu le corectați',
  needs_mapping: 'rămân deoparte: codul operației nu are încă un cod al registrului (mapați-l mai sus)',
  needs_review: 'rămân deoparte: kilometrajul este mai mic decât unul înregistrat deja (includeți-le mai sus dacă sunt corecte)',
  already_sent: 'rămân deoparte: aceeași prezentare există deja în Trimiteri',
  duplicate_in_file: 'rămân deoparte: același rând apare mai sus în fișier',
  left_out: 'rămân deoparte: nu sunt prestații (totaluri, note, capul de tabel repetat) sau le-ați lăsat deoparte',
};

export const BATCH_STATUS_LABEL: Record<ImportBatchStatus, string> = {
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
