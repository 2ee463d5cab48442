import { z } from 'zod';

// Shapes of the submission API. Only the shape is checked here (a wrong shape is a 422);
// content rules live in validate.ts (a content problem holds the submission as needs_data).
// Keys a schema does not name are dropped (zod's default), never refused: versioning is
// additive, so a client may send fields a newer gateway knows. What is dropped is neither
// stored, nor echoed, nor part of the idempotency key (tests/integration/unknown-keys-and-image).

/** The longest text each field may hold: the API refuses more (422), the import holds its row (import-row.ts). */
export const TEXT_MAX = { code: 64, name: 500, vin: 100, nrInm: 100, dataPrestatie: 100, odometer: 32 } as const;

const code = z.string().max(TEXT_MAX.code);
const name = z.string().max(TEXT_MAX.name);

export const DirectItem = z.object({ cod_prestatie: code, denumire: name.optional() });
export type DirectItem = z.infer<typeof DirectItem>;

export const InternalItem = z.object({ cod_op_service: code, denumire: name });
export type InternalItem = z.infer<typeof InternalItem>;

export const PrestatieInput = z.union([DirectItem, InternalItem]);
export type PrestatieInput = z.infer<typeof PrestatieInput>;

export const RegCredentials = z.object({
  username: z.string().min(1).max(200),
  password: z.string().min(1).max(500),
});
export type RegCredentials = z.infer<typeof RegCredentials>;

/** Odometers arrive as numbers or numeric strings ("154200.0" from spreadsheets). */
const odometer = z.union([z.number(), z.string().max(TEXT_MAX.odometer)]);

export const SubmissionInput = z.object({
  vin: z.string().max(TEXT_MAX.vin),
  nrInm: z.string().max(TEXT_MAX.nrInm),
  dataPrestatie: z.string().max(TEXT_MAX.dataPrestatie),
  odometruInitial: odometer.nullish(),
  odometruFinal: odometer.nullable(),
  prestatii: z.array(PrestatieInput).max(200),
  b64Image: z.string().optional(),
  reg_credentials: RegCredentials.nullish(),
  on_unmapped_error: z.boolean().nullish(),
});
export type SubmissionInput = z.infer<typeof SubmissionInput>;

/** The dashboard's correction of a `needs_data` submission: the record's own fields, as typed in a form. */
export const CorrectionInput = z.object({
  vin: z.string().trim().min(1).max(100),
  nrInm: z.string().trim().min(1).max(100),
  dataPrestatie: z.string().trim().min(1).max(32),
  odometruInitial: z.preprocess((v) => (v === '' ? null : v), z.string().trim().max(32).nullable()),
  odometruFinal: z.string().trim().min(1).max(32),
});
export type CorrectionInput = z.infer<typeof CorrectionInput>;
