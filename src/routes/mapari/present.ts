import type { MappingRecord, NomenclatorEntry, PendingOperation } from '../../services/operations/mappings';
import type { TextRuleRecord } from '../../services/operations/text-rules';
import type { MappingView, NomenclatorEntryView, PendingView, TextRuleView } from './schemas';

/** The API's forms of the operations records (the spec's field names, ISO timestamps). */
export const presentMapping = (m: MappingRecord): MappingView => ({
  cod_op_service: m.codOpService,
  cod_prestatie: m.codPrestatie,
  denumire_prestatie: m.denumirePrestatie,
  auto_send: m.autoSend,
  updated_at: m.updatedAt.toISOString(),
});

export const presentPending = (p: PendingOperation): PendingView => ({ cod_op_service: p.codOpService, denumire: p.denumire, trimiteri: p.submissions, sugestie: p.suggestion });

export const presentTextRule = (r: TextRuleRecord): TextRuleView => ({
  id: r.id,
  pattern: r.pattern,
  cod_prestatie: r.codPrestatie,
  priority: r.priority,
  created_at: r.createdAt.toISOString(),
});

export const presentNomenclatorEntry = (e: NomenclatorEntry): NomenclatorEntryView => ({
  cod: e.cod,
  denumire: e.denumire,
  sursa: e.source,
  updated_at: e.updatedAt.toISOString(),
});
