import { z } from 'zod';

// Shapes of the submission API. Only the shape is checked here (a wrong shape is a 422);
// content rules live in validate.ts (a content problem holds the submission as needs_data).
// Keys a schema does not name are dropped (zod's default), never refused: versioning is
// additive, so a client may send fields a newer gateway knows. What is dropped is neither
// stored, nor echoed, nor part of the idempotency key (tests/integration/unknown-keys-and-image).

/** The longest text each field may hold: the API refuses more (422), the import holds its row (import-row.ts). */
export const TEXT_MAX = { code: 64, name: 500, vin: 100, nrInm: 100, dataPrestatie: 100, odometer: 32 } as const;

/** Operations in one submission. */
export const MAX_PRESTATII = 200;
const CREDENTIALS_MAX = { username: 200, password: 500 } as const;

const code = z.string().max(TEXT_MAX.code);
const name = z.string().max(TEXT_MAX.name);

export const DirectItem = z.object({ cod_prestatie: code, denumire: name.optional() });
export type DirectItem = z.infer<typeof DirectItem>;

export const InternalItem = z.object({ cod_op_service: code, denumire: name });
export type InternalItem = z.infer<typeof InternalItem>;

export const PrestatieInput = z.union([DirectItem, InternalItem]);
export type PrestatieInput = z.infer<typeof PrestatieInput>;

export const RegCredentials = z.object({
  username: z.string().min(1).max(CREDENTIALS_MAX.username),
  password: z.string().min(1).max(CREDENTIALS_MAX.password),
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
  prestatii: z.array(PrestatieInput).max(MAX_PRESTATII),
  b64Image: z.string().optional(),
  reg_credentials: RegCredentials.nullish(),
  on_unmapped_error: z.boolean().nullish(),
});
export type SubmissionInput = z.infer<typeof SubmissionInput>;

/** A character of a JSON string at its longest: `\uXXXX`. */
const ESCAPED = 6;
/** Keys, quotes and separators of one operation, and of the submission around them. */
const ITEM_SYNTAX = 64;
const SUBMISSION_SYNTAX = 512;
/** Spaces between tokens and fields a newer client may add (dropped unread, never refused). */
const SLACK = 64 * 1024;

/**
 * The longest JSON body a submission needs: its photo of `imageBytes` in base64, every other
 * field at its longest with each character escaped, and SLACK. A longer body cannot be a
 * submission the API would take, and is refused (413) as it arrives, before it is parsed.
 */
export function maxSubmissionJsonBytes(imageBytes: number): number {
  const image = 4 * Math.ceil(imageBytes / 3);
  // An item may name all three fields (a direct code with an operation's), each at its longest.
  const item = ESCAPED * (2 * TEXT_MAX.code + TEXT_MAX.name) + ITEM_SYNTAX;
  const scalars = TEXT_MAX.vin + TEXT_MAX.nrInm + TEXT_MAX.dataPrestatie + 2 * TEXT_MAX.odometer + CREDENTIALS_MAX.username + CREDENTIALS_MAX.password;
  return image + MAX_PRESTATII * item + ESCAPED * scalars + SUBMISSION_SYNTAX + SLACK;
}

/** The dashboard's correction of a `needs_data` submission: the record's own fields, as typed in a form. */
export const CorrectionInput = z.object({
  vin: z.string().trim().min(1).max(100),
  nrInm: z.string().trim().min(1).max(100),
  dataPrestatie: z.string().trim().min(1).max(32),
  odometruInitial: z.preprocess((v) => (v === '' ? null : v), z.string().trim().max(32).nullable()),
  odometruFinal: z.string().trim().min(1).max(32),
});
export type CorrectionInput = z.infer<typeof CorrectionInput>;
