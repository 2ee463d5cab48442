import { z } from 'zod';

/** A mapping of the workshop's operation code to a registry code: the API's body and the editor's form. */
export const MappingInput = z.object({
  cod_op_service: z.string().trim().min(1).max(64),
  cod_prestatie: z.string().trim().min(1).max(64),
  auto_send: z.boolean().optional(),
});
export type MappingInput = z.infer<typeof MappingInput>;
