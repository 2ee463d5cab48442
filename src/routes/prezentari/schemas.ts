import { z } from 'zod';
import { SUBMISSION_STATUSES } from '../../domain/statuses';
import { CATALOG, type ErrorCode } from '../../errors';

// The answers of /v1/prezentari as zod schemas: the presenters (present.ts) are typed by them
// and the OpenAPI document is generated from them, so the document says what is sent.

const ERROR_CODES = Object.keys(CATALOG) as [ErrorCode, ...ErrorCode[]];
const Status = z.enum(SUBMISSION_STATUSES);

/** One entry of `erori`: `{field, message}` and the three-level detail. */
export const ContentErrorView = z.object({
  field: z.string(),
  message: z.string(),
  cod: z.enum(ERROR_CODES),
  problema: z.string(),
  cauza: z.string(),
  fix: z.string(),
});

export const ResolvedItemView = z.object({
  cod_prestatie: z.string(),
  denumire: z.string(),
  cod_client: z.string(),
  sursa: z.enum(['nomenclator', 'mapare', 'regula_text']),
});

/** POST /v1/prezentari. A duplicate answers the stored submission, in whatever status it is now. */
export const SubmissionResult = z.object({
  submission_id: z.number().int().nullable(),
  status: Status,
  erori: z.array(ContentErrorView),
  nemapate: z.array(z.string()),
  motiv: z.string().nullable(),
  duplicate: z.boolean(),
  reactivated: z.boolean(),
});
export type SubmissionResult = z.infer<typeof SubmissionResult>;

/** POST /v1/prezentari/valideaza. */
export const DryRunResult = z.object({
  status_estimat: z.enum(['queued', 'needs_data', 'needs_mapping']),
  respins: z.boolean(),
  erori: z.array(ContentErrorView),
  nemapate: z.array(z.string()),
  motiv: z.string().nullable(),
  prestatii: z.array(ResolvedItemView),
});
export type DryRunResult = z.infer<typeof DryRunResult>;

const RegErrorView = z.object({
  cod: z.string(),
  problema: z.string(),
  cauza: z.string(),
  fix: z.string(),
  mesaj_registru: z.string().nullable().optional(),
  http_status: z.number().int().nullable().optional(),
});

/** GET /v1/prezentari/{id}: the allow-list (never the payload, the key, the image or credentials). */
export const SubmissionView = z.object({
  submission_id: z.number().int(),
  status: Status,
  vin: z.string(),
  nrInm: z.string(),
  dataPrestatie: z.string(),
  prestatii: z.array(ResolvedItemView),
  motiv: z.string().nullable(),
  nemapate: z.array(z.string()),
  erori: z.array(ContentErrorView),
  reg_error: RegErrorView.nullable(),
  registry_id: z.string().nullable(),
  attempts: z.number().int(),
  batch_id: z.number().int().nullable(),
  row_index: z.number().int().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  sent_at: z.iso.datetime().nullable(),
  purge_after: z.iso.datetime().nullable(),
});
export type SubmissionView = z.infer<typeof SubmissionView>;

export const SubmissionPageView = z.object({ items: z.array(SubmissionView), next_cursor: z.string().nullable() });
export type SubmissionPageView = z.infer<typeof SubmissionPageView>;

export const Deleted = z.object({ submission_id: z.number().int(), deleted: z.literal(true), previous_status: Status });
export type Deleted = z.infer<typeof Deleted>;
export const Requeued = z.object({ submission_id: z.number().int(), status: z.literal('queued'), previous_status: Status });
export type Requeued = z.infer<typeof Requeued>;
