import type { MiddlewareHandler } from 'hono';
import type { RouterRoute } from 'hono/types';
import { findTargetHandler } from 'hono/utils/handler';
import { z } from 'zod';
import { ErrorEnvelope, ShapeError } from './http/envelope';
import { describedText, operationId, operationTags, requestExample, TAGS } from './openapi-meta';

// The OpenAPI document is generated from the app's own routes: every route is declared with
// `describeRoute({...})` as its first handler, next to the zod schemas that validate its body
// and query string, and the document walks `app.routes`. A route without a description, a
// body schema that changes, or a status added to the description shows up in the document
// with no second list to keep in step (tests/integration/openapi.test.ts holds it complete).

/** A response as documented: a description and, when it has one, its JSON (or other) body. */
interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  contentType?: string;
}

export interface RouteDoc {
  summary: string;
  /** The JSON body, the very schema `jsonBody(...)` validates with. */
  body?: z.ZodType;
  /** A body of another type (multipart upload), as a JSON Schema. */
  rawBody?: { contentType: string; schema: Record<string, unknown> };
  /** The query string, the very schema `parseQuery(...)` validates with. */
  query?: z.ZodObject;
  /**
   * The statuses the handler itself answers: its success and what its services throw (400,
   * 404 of a missing row, 409 of a state, the import's 413/415/422). A string is the
   * description alone; error statuses carry the error envelope (422: the shape error).
   * 401 and 413 of /v1, 422 of a body or query and 404 of a path id are added by the generator.
   */
  responses: Record<number, string | ResponseDoc>;
  /** What the operation does beyond its summary: how to read the answer, what it never does. */
  description?: string;
  /** Served under /v1 without a key (mounted before the key check): no security, no 401. */
  public?: boolean;
}

const documented = new WeakMap<object, RouteDoc>();

/**
 * The description of a route, as its first handler: `app.post('/', describeRoute({...}), jsonBody(X), handler)`.
 * At run time it only passes the request on.
 */
export function describeRoute(doc: RouteDoc): MiddlewareHandler {
  const marker: MiddlewareHandler = (_c, next) => next();
  documented.set(marker, doc);
  return marker;
}

/** The description a route entry carries (sub-apps with their own onError wrap handlers). */
export function routeDoc(route: Pick<RouterRoute, 'handler'>): RouteDoc | undefined {
  return documented.get(findTargetHandler(route.handler));
}

/** app.ts puts the API key check and the body limit on every path under /v1/. */
const AUTHENTICATED = '/v1/';
const WITHOUT_BODY = new Set(['get', 'head', 'options']);

const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
const json = (s: z.ZodType) => ({ content: { 'application/json': { schema: schema(s) } } });

/** Hono's `/:id` (or `/:id{[0-9]+}`) as OpenAPI's `/{id}`, with the parameters' names. */
export function openApiPath(honoPath: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = honoPath.replace(/:(\w+)(\{[^}]*\})?\??/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path, params };
}

function responseObject(status: number, value: string | ResponseDoc) {
  const doc = typeof value === 'string' ? { description: value } : value;
  if (doc.schema) return { description: doc.description, content: { [doc.contentType ?? 'application/json']: { schema: schema(doc.schema) } } };
  if (doc.contentType) return { description: doc.description, content: { [doc.contentType]: {} } };
  if (status === 422) return { description: doc.description, ...json(ShapeError) };
  if (status >= 400) return { description: doc.description, ...json(ErrorEnvelope) };
  return { description: doc.description };
}

function operationObject(method: string, path: string, params: string[], doc: RouteDoc) {
  const authenticated = path.startsWith(AUTHENTICATED) && !doc.public;
  const parameters = [
    ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...Object.entries(doc.query?.shape ?? {}).map(([name, field]) => ({
      name,
      in: 'query',
      required: !(field as z.ZodType).safeParse(undefined).success,
      schema: schema(field as z.ZodType),
    })),
  ];
  const responses: Record<number, string | ResponseDoc> = {};
  if (authenticated) responses[401] = 'Cheie lipsă sau invalidă';
  if (authenticated) responses[429] = 'Prea multe cereri (cu Retry-After)';
  if (authenticated && !WITHOUT_BODY.has(method)) responses[413] = 'Corpul cererii depășește limita';
  // Multipart is read only by the upload: sent anywhere else it is refused before its body (src/http/body.ts).
  if (authenticated) responses[415] = 'Corp multipart/form-data pe o cale care nu primește fișiere';
  // Any operation: a path or query string holding a NUL is refused before routing.
  responses[422] = doc.body || doc.query ? 'Corp sau parametri invalizi' : 'Adresa conține un caracter nepermis (NUL)';
  if (params.length) responses[404] = 'Nu există (sau aparține altui cont)';
  Object.assign(responses, doc.responses);
  const example = requestExample(method, path);
  const requestBody = doc.body
    ? { required: true, content: { 'application/json': { schema: schema(doc.body), ...(example ? { example } : {}) } } }
    : doc.rawBody
      ? { required: true, content: { [doc.rawBody.contentType]: { schema: doc.rawBody.schema } } }
      : undefined;
  return {
    operationId: operationId(method, path),
    tags: operationTags(path),
    summary: doc.summary,
    description: doc.description ?? describedText(method, path) ?? doc.summary,
    // A public operation says so: no key is needed (an absent `security` would mean the default).
    security: authenticated ? [{ apiKey: [] }, { bearer: [] }] : [],
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: Object.fromEntries(Object.entries(responses).map(([status, value]) => [status, responseObject(Number(status), value)])),
  };
}

/** The document of every described route among `routes` (an app's `app.routes`), for the gateway at `base`. */
export function openApiDocument(routes: readonly RouterRoute[], base: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const doc = routeDoc(route);
    if (!doc) continue;
    const { path, params } = openApiPath(route.path);
    const method = route.method.toLowerCase();
    paths[path] = { ...paths[path], [method]: operationObject(method, path, params, doc) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Gateway prezentări service', version: '1.0.0', description: 'Raportarea prezentărilor service către registru.' },
    servers: [{ url: base, description: 'Acest gateway (GATEWAY_PUBLIC_URL)' }],
    tags: TAGS.filter((t) => Object.values(paths).some((ops) => Object.values(ops).some((op) => (op as { tags: string[] }).tags.includes(t.name)))),
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  };
}
