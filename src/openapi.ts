import { z } from 'zod';
import { SubmissionInput, RegCredentials } from './domain/submission-input';
import { ExportQuery } from './routes/audit';
import { MappingInput } from './routes/mapari';
import { ListQuery } from './routes/prezentari';
import { TextRuleInput } from './routes/reguli-text';

// The OpenAPI document is generated from the zod schemas that validate the requests
// (bodies and query strings), so the two cannot drift apart.

const ContentErrorSchema = z.object({ field: z.string(), message: z.string(), cod: z.string(), problema: z.string(), cauza: z.string(), fix: z.string() });
const SubmissionResult = z.object({
  submission_id: z.number().int().nullable(),
  status: z.enum(['queued', 'needs_data', 'needs_mapping', 'error']),
  erori: z.array(ContentErrorSchema),
  nemapate: z.array(z.string()),
  motiv: z.string().nullable(),
  duplicate: z.boolean(),
  reactivated: z.boolean(),
});
const DryRunResult = z.object({
  status_estimat: z.enum(['queued', 'needs_data', 'needs_mapping']),
  respins: z.boolean(),
  erori: z.array(ContentErrorSchema),
  nemapate: z.array(z.string()),
  motiv: z.string().nullable(),
  prestatii: z.array(z.object({ cod_prestatie: z.string(), denumire: z.string(), cod_client: z.string(), sursa: z.string() })),
});
const ErrorEnvelope = z.object({ status: z.number(), cod: z.string(), problema: z.string(), cauza: z.string(), fix: z.string(), request_id: z.string().nullable() });
const ShapeError = z.object({ detail: z.array(z.object({ type: z.string(), loc: z.array(z.union([z.string(), z.number()])), msg: z.string() })) });

interface Operation {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  response?: z.ZodType;
  contentType?: string;
  pathParams?: string[];
}

const OPERATIONS: Operation[] = [
  { method: 'post', path: '/v1/prezentari', summary: 'Trimite o prezentare (clasificată, de-duplicată, pusă în coadă)', body: SubmissionInput, response: SubmissionResult },
  { method: 'post', path: '/v1/prezentari/valideaza', summary: 'Dry run: verdictul fără nicio scriere', body: SubmissionInput, response: DryRunResult },
  { method: 'get', path: '/v1/prezentari', summary: 'Lista prezentărilor contului (paginare cu cursor)', query: ListQuery },
  { method: 'get', path: '/v1/prezentari/{id}', summary: 'O prezentare (câmpuri permise, inclusiv reg_error)', pathParams: ['id'] },
  { method: 'delete', path: '/v1/prezentari/{id}', summary: 'Șterge o prezentare (queued, needs_data, needs_mapping, error)', pathParams: ['id'] },
  { method: 'post', path: '/v1/prezentari/{id}/repune', summary: 'Repune în coadă o prezentare blocată (needs_data, needs_mapping, error)', pathParams: ['id'] },
  { method: 'get', path: '/v1/nomenclator', summary: 'Nomenclatorul global al registrului' },
  { method: 'get', path: '/v1/mapari', summary: 'Mapările contului' },
  { method: 'get', path: '/v1/mapari/pending', summary: 'Coduri nemapate, cu sugestie preselectată' },
  { method: 'post', path: '/v1/mapari', summary: 'Salvează o mapare și reclasifică trimiterile blocate', body: MappingInput },
  { method: 'delete', path: '/v1/mapari/{code}', summary: 'Șterge o mapare', pathParams: ['code'] },
  { method: 'get', path: '/v1/reguli-text', summary: 'Regulile text ale contului' },
  { method: 'post', path: '/v1/reguli-text', summary: 'Adaugă o regulă text', body: TextRuleInput },
  { method: 'put', path: '/v1/reguli-text/{id}', summary: 'Înlocuiește o regulă text', body: TextRuleInput, pathParams: ['id'] },
  { method: 'delete', path: '/v1/reguli-text/{id}', summary: 'Șterge o regulă text', pathParams: ['id'] },
  { method: 'post', path: '/v1/conturi/reg-creds', summary: 'Salvează credențialele durabile ale registrului (criptate)', body: RegCredentials },
  { method: 'delete', path: '/v1/conturi/reg-creds', summary: 'Șterge credențialele durabile' },
  { method: 'get', path: '/v1/ping', summary: 'Verifică cheia și mediul' },
  { method: 'get', path: '/v1/audit/export', summary: 'Export CSV (fără imagine)', query: ExportQuery, contentType: 'text/csv' },
];

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;

function operationObject(op: Operation) {
  const parameters = [
    ...(op.pathParams ?? []).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(op.query?.shape ?? {}).map(([name, field]) => ({
      name,
      in: 'query',
      required: !(field as z.ZodType).safeParse(undefined).success,
      schema: schema(field as z.ZodType),
    })),
  ];
  const ok = op.response ? { content: { 'application/json': { schema: schema(op.response) } } } : { content: { [op.contentType ?? 'application/json']: {} } };
  return {
    summary: op.summary,
    security: [{ apiKey: [] }, { bearer: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: schema(op.body) } } } } : {}),
    responses: {
      '200': { description: 'OK', ...ok },
      '401': { description: 'Cheie lipsă sau invalidă', content: { 'application/json': { schema: schema(ErrorEnvelope) } } },
      ...(op.body || op.query ? { '422': { description: 'Corp sau parametri invalizi', content: { 'application/json': { schema: schema(ShapeError) } } } } : {}),
      ...(op.pathParams ? { '404': { description: 'Nu există (sau aparține altui cont)', content: { 'application/json': { schema: schema(ErrorEnvelope) } } } } : {}),
    },
  };
}

export function openApiDocument(extra: Operation[] = []) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of [...OPERATIONS, ...extra]) (paths[op.path] ??= {})[op.method] = operationObject(op);
  return {
    openapi: '3.1.0',
    info: { title: 'Gateway prezentări service', version: '1.0.0', description: 'Raportarea prezentărilor service către registru.' },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  };
}
export type { Operation as OpenApiOperation };
