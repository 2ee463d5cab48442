import { z } from 'zod';

/** A mapping of the workshop's operation code to a registry code: the API's body and the editor's form. Unknown keys are dropped, as in submission-input.ts. */
export const MappingInput = z.object({
  cod_op_service: z.string().trim().min(1).max(64),
  cod_prestatie: z.string().trim().min(1).max(64),
  auto_send: z.boolean().optional(),
});
export type MappingInput = z.infer<typeof MappingInput>;

/** A text rule: operations whose name contains `pattern` resolve to `cod_prestatie`. */
export const TextRuleInput = z.object({
  pattern: z.string().trim().min(2, 'Textul căutat trebuie să aibă cel puțin 2 caractere').max(200),
  cod_prestatie: z.string().trim().min(1).max(64),
  priority: z.number().int().min(0).max(100_000).optional(),
});
export type TextRuleInput = z.infer<typeof TextRuleInput>;
