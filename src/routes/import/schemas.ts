import { CHOSEN_CODE_PAGES } from '../../readers/code-pages';
import { z } from 'zod';
import { IMPORT_FIELDS, type ImportField } from '../../domain/import-header';
import { ROW_STATES } from '../../domain/import-state';
import { FAILED_FORMATS } from '../../services/import';

/**
 * An object of the import's fields (IMPORT_FIELDS, the one list), each optional as `value` says;
 * any other name is refused, since there an unknown name is a typo that would change nothing.
 */
function eachImportField<T extends z.ZodType>(value: T) {
  return z.object(Object.fromEntries(IMPORT_FIELDS.map((field) => [field, value])) as Record<ImportField, T>).strict();
}

export const PreviewQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  page_size: z.coerce.number().int().min(1).max(1000).default(100),
  state: z.enum(ROW_STATES).optional(),
});
export type PreviewQuery = z.infer<typeof PreviewQuery>;

/** A column by 0-based index or by its header text; null leaves the field unmapped. */
const ColumnRef = z.union([z.number().int().min(0).max(10_000), z.string().min(1).max(300), z.null()]).optional();

export const ColumnMappingBody = z.object({
  column_mapping: eachImportField(ColumnRef),
  // false (default): the given fields change, the others keep their column; true: the given
  // fields are the whole mapping.
  replace: z.boolean().default(false),
});
export type ColumnMappingBody = z.infer<typeof ColumnMappingBody>;

/** A new value for a field; "" or null clears the field's override (back to the file's value). */
const FieldValue = z.union([z.string().max(500), z.number().finite(), z.null()]).optional();

export const RowEditBody = eachImportField(FieldValue).refine((body) => Object.keys(body).length > 0, 'Trimiteți cel puțin un câmp de modificat.');
export type RowEditBody = z.infer<typeof RowEditBody>;

export const RowReviewBody = z.object({ include: z.boolean() }).strict();
export type RowReviewBody = z.infer<typeof RowReviewBody>;

/** `deoparte: true` leaves the row out of the commit by hand; `false` takes it back in. */
export const RowLeftOutBody = z.object({ deoparte: z.boolean() }).strict();
export type RowLeftOutBody = z.infer<typeof RowLeftOutBody>;

export const CommitBody = z.object({
  n_confirmed: z.number().int().min(0),
  rows_hash: z.string().regex(/^[0-9a-f]{64}$/, 'rows_hash este un SHA-256 hex, așa cum îl dă previzualizarea.'),
});
export type CommitBody = z.infer<typeof CommitBody>;

/** The upload's multipart form, as readUpload reads it (a JSON Schema: it is not parsed by zod). */
export const UploadForm = {
  contentType: 'multipart/form-data',
  schema: {
    type: 'object',
    required: ['file'],
    properties: {
      file: {
        type: 'string',
        format: 'binary',
        description: 'Fișierul xlsx, csv sau tabela .dbf (dBase, FoxPro, Clipper); o tabelă cu câmpuri memo, într-o arhivă zip cu fișierul ei .fpt / .dbt.',
      },
      codepage: {
        type: 'string',
        enum: ['', ...CHOSEN_CODE_PAGES.map((c) => String(c.codePage))],
        default: '',
        description: 'Doar pentru .dbf: pagina de cod a textului, în locul celei din antetul tabelei (gol: cea din antet).',
      },
      // No sheet by default: "Try it out" would otherwise send Swagger UI's sample "string" as a sheet's name.
      sheet: {
        type: 'array',
        items: { type: 'string', maxLength: 200 },
        default: [],
        description: 'Foile de importat, după nume (implicit, ori cu un câmp gol: prima foaie cu date).',
      },
    },
  },
};

export const ExportFailedQuery = z.object({
  format: z.enum(FAILED_FORMATS, { error: 'format este csv sau xlsx.' }).default('csv'),
});
export type ExportFailedQuery = z.infer<typeof ExportFailedQuery>;
