import { z } from 'zod';

// The answers of /v1/mapari, /v1/reguli-text and /v1/nomenclator: the presenters are typed by
// these schemas and the OpenAPI document is generated from them.

export const SuggestionView = z.object({
  cod_prestatie: z.string(),
  denumire: z.string(),
  scor: z.number(),
  sursa: z.enum(['cod', 'exemplu', 'vocabular']),
  asemanator_cu: z.string().optional(),
  grav: z.boolean(),
  preselect: z.boolean(),
});

export const MappingView = z.object({
  cod_op_service: z.string(),
  cod_prestatie: z.string(),
  denumire_prestatie: z.string().nullable(),
  auto_send: z.boolean(),
  updated_at: z.iso.datetime(),
});
export type MappingView = z.infer<typeof MappingView>;

export const PendingView = z.object({ cod_op_service: z.string(), denumire: z.string(), trimiteri: z.number().int(), sugestie: SuggestionView.nullable() });
export type PendingView = z.infer<typeof PendingView>;

export const TextRuleView = z.object({ id: z.number().int(), pattern: z.string(), cod_prestatie: z.string(), priority: z.number().int(), created_at: z.iso.datetime() });
export type TextRuleView = z.infer<typeof TextRuleView>;

export const NomenclatorEntryView = z.object({ cod: z.string(), denumire: z.string(), sursa: z.string(), updated_at: z.iso.datetime() });
export type NomenclatorEntryView = z.infer<typeof NomenclatorEntryView>;

/** How many held submissions a saved mapping or rule moved, by their new status. */
export const Reclassified = z.object({ queued: z.number().int(), needs_data: z.number().int(), needs_mapping: z.number().int() });

export const MappingSaved = z.object({
  mapare: z.object({ cod_op_service: z.string(), cod_prestatie: z.string(), auto_send: z.boolean() }),
  reclasificate: Reclassified,
});
export type MappingSaved = z.infer<typeof MappingSaved>;

export const TextRuleSaved = z.object({ regula: TextRuleView, reclasificate: Reclassified });
export type TextRuleSaved = z.infer<typeof TextRuleSaved>;

export const Removed = z.object({ deleted: z.literal(true) });
export type Removed = z.infer<typeof Removed>;

/** A list answer: `{items: [...]}`. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item) });
