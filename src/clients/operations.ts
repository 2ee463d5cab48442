import type { SubmissionInput } from '../domain/submission-input';

// The one description of what a client does with the gateway. The integration page's examples
// in every language, the Postman collection and the OpenAPI document's request examples are
// all generated from it, so an example cannot say one thing while another says something else.

/** The key as the examples show it: the user puts their own in its place. */
export const KEY_PLACEHOLDER = 'INLOCUITI_CU_CHEIA_DVS';
/** The file the import examples upload (the user's own export, next to the program). */
export const FILE_PLACEHOLDER = 'prestatii.csv';

/** A submission whose dry run answers `queued` (OE-3 is in the fallback nomenclator); no reg_credentials, ever. */
export const EXAMPLE_SUBMISSION = {
  vin: 'WDB1234561A654321',
  nrInm: 'B123ABC',
  dataPrestatie: '2025-03-14',
  odometruFinal: 154200,
  prestatii: [{ cod_prestatie: 'OE-3' }],
} satisfies SubmissionInput;

/** The values a later step takes from an earlier answer, with their JSON type (languages without JSON types need it). */
export const CAPTURED = { batch_id: 'number', n_to_commit: 'number', rows_hash: 'string' } as const;
export type Captured = keyof typeof CAPTURED;
export const isCaptured = (name: string): name is Captured => Object.hasOwn(CAPTURED, name);

export interface Operation {
  id: 'ping' | 'dryRun' | 'submit' | 'upload' | 'batch' | 'preview' | 'commit';
  method: 'GET' | 'POST';
  /** The path; `{batch_id}` is the upload's answer. */
  path: string;
  /** The JSON body, or a multipart upload of the file in the field `file`. */
  body?: { json: Record<string, unknown> } | { file: 'file' };
  title: string;
  /** The answer's fields the example reads and prints, in that order. */
  reads: readonly string[];
}

export const PING: Operation = {
  id: 'ping',
  method: 'GET',
  path: '/v1/ping',
  title: 'Verifică cheia și mediul',
  reads: ['account_id', 'mediu'],
};

export const DRY_RUN: Operation = {
  id: 'dryRun',
  method: 'POST',
  path: '/v1/prezentari/valideaza',
  body: { json: EXAMPLE_SUBMISSION },
  title: 'Dry run: verdictul fără nicio scriere',
  reads: ['status_estimat', 'erori', 'motiv'],
};

export const SUBMIT: Operation = {
  id: 'submit',
  method: 'POST',
  path: '/v1/prezentari',
  body: { json: EXAMPLE_SUBMISSION },
  title: 'Trimite prezentarea',
  reads: ['submission_id', 'status', 'erori', 'motiv'],
};

export const UPLOAD: Operation = {
  id: 'upload',
  method: 'POST',
  path: '/v1/import',
  body: { file: 'file' },
  title: 'Încarcă fișierul (xlsx sau csv)',
  reads: ['batch_id', 'status'],
};

/** An upload answers `queued`: the client asks again while it is `queued` or `staging`. */
export const BATCH: Operation = {
  id: 'batch',
  method: 'GET',
  path: '/v1/import/{batch_id}',
  title: 'Starea importului (cât timp este „queued” sau „staging”, se încarcă în fundal)',
  reads: ['status'],
};

export const PREVIEW: Operation = {
  id: 'preview',
  method: 'GET',
  path: '/v1/import/{batch_id}/preview?page_size=1',
  title: 'Previzualizarea: câte rânduri sunt gata și rows_hash',
  reads: ['n_to_commit', 'rows_hash'],
};

/** The commit's body names what the preview answered; the examples fill it in. */
export const COMMIT: Operation = {
  id: 'commit',
  method: 'POST',
  path: '/v1/import/{batch_id}/commit',
  body: { json: { n_confirmed: '{n_to_commit}', rows_hash: '{rows_hash}' } },
  title: 'Confirmă importul',
  reads: ['inserted'],
};

export const JSON_CHANNEL = [DRY_RUN, SUBMIT] as const;
export const FILE_CHANNEL = [UPLOAD, BATCH, PREVIEW, COMMIT] as const;
export const OPERATIONS = [PING, DRY_RUN, SUBMIT, UPLOAD, BATCH, PREVIEW, COMMIT] as const;

/** The example body's JSON, compact, as every language sends it. */
export const exampleJson = (op: Operation): string => (op.body && 'json' in op.body ? JSON.stringify(op.body.json) : '');
