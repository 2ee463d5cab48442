import type { Context, MiddlewareHandler } from 'hono';
import { hasUnstorableChar } from '../domain/text';
import type { BodyFault, RefuseBody } from '../http/body-refusals';
import { BodyTooLargeError, readBody } from '../http/body';
import { isFormFile, parseFormData, type FormFile } from '../http/multipart';
import { errorNotice } from './notice';

/** A form's fields by name; a name sent more than once holds every value, in order. */
export type FormFields = Record<string, string | FormFile | Array<string | FormFile>>;

/** A form or an htmx action never needs more than this. */
export const MAX_FORM_BYTES = 64 * 1024;

const URLENCODED = /^application\/x-www-form-urlencoded\b/i;
const MULTIPART = /^multipart\/form-data\b/i;

/** Why a form body could not be read: the client left before sending it all, or it is not a form. */
export class FormBodyError extends Error {
  constructor(readonly fault: BodyFault) {
    super(`form body ${fault}`);
  }
}

// Parsed once per request: the guard, the CSRF check and the handler all read the same fields.
const parsed = new WeakMap<object, Promise<FormFields>>();
// The few requests allowed a larger body than a form's: the browser's upload.
const limits = new WeakMap<object, number>();

/**
 * Lets this request's form be up to `maxBytes` (the browser's upload, up to the API's upload
 * limit). Set before anything reads the form: the session's CSRF check may read it.
 */
export function allowLargeForm(c: Context, maxBytes: number): void {
  limits.set(c.req, maxBytes);
}

/** Whether this request may send a form past MAX_FORM_BYTES (the browser's upload). */
export function allowsLargeForm(c: Context): boolean {
  return limits.has(c.req);
}

/**
 * The one reader of a dashboard form's body. A body of another type (or none) has no fields,
 * so each form's schema refuses it; one past MAX_FORM_BYTES throws BodyTooLargeError; one that
 * does not arrive whole, or is no form, throws FormBodyError. Hono's parseBody threw a bare
 * TypeError for a broken multipart body, which reached the error handler as a 500.
 */
export function readForm(c: Context): Promise<FormFields> {
  let form = parsed.get(c.req);
  if (!form) {
    form = parseForm(c);
    parsed.set(c.req, form);
  }
  return form;
}

async function parseForm(c: Context): Promise<FormFields> {
  const type = c.req.header('content-type') ?? '';
  const fields: FormFields = Object.create(null);
  if (!URLENCODED.test(type) && !MULTIPART.test(type)) return fields;
  let bytes: Buffer;
  try {
    bytes = await readBody(c, limits.get(c.req) ?? MAX_FORM_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw error;
    // The bytes did not arrive: the connection failed under the request.
    throw new FormBodyError('aborted');
  }
  let entries: Iterable<[string, string | FormFile]>;
  if (URLENCODED.test(type)) {
    // Never throws: a bad escape stays as sent, invalid UTF-8 becomes U+FFFD.
    entries = new URLSearchParams(bytes.toString('utf8'));
  } else {
    try {
      entries = parseFormData(bytes, type).map((part) => [part.name, isFormFile(part) ? part : part.value]);
    } catch {
      throw new FormBodyError('unreadable');
    }
  }
  for (const [name, value] of entries) {
    const seen = fields[name];
    fields[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}

function hasUnstorableField(fields: FormFields): boolean {
  return Object.entries(fields).some(([name, value]) => hasUnstorableChar(name) || [value].flat().some((v) => typeof v === 'string' && hasUnstorableChar(v)));
}

/**
 * Every dashboard path: the form body read (once) before anything else looks at it, so a body
 * that is too large (413), does not arrive or is no form (400, counted per address by
 * `refuseBody`), or holds a field PostgreSQL cannot store (a NUL or a lone surrogate: 422, like
 * the API's `unstorable_char`) is refused as a notice, with or without a session.
 */
export function guardForm(refuseBody: RefuseBody, skip: (c: Context) => boolean = () => false): MiddlewareHandler {
  return async (c, next) => {
    if (skip(c)) return next();
    const refused = await refuseForm(c, refuseBody);
    if (refused) return refused;
    await next();
  };
}

/** The guard's judgement of a form alone (the upload asks it after its session and admission): the refusal, or null. */
export async function refuseForm(c: Context, refuseBody: RefuseBody): Promise<Response | null> {
  let fields: FormFields;
  try {
    fields = await readForm(c);
  } catch (error) {
    const refusal = formRefusal(c, refuseBody, error);
    if (refusal) return refusal;
    throw error;
  }
  if (hasUnstorableField(fields)) {
    return errorNotice(c, 'FORMULAR_INVALID', 'Un câmp conține un caracter nepermis (NUL sau un surogat UTF-16 fără pereche).');
  }
  return null;
}

/** A body that could not be read as a form, as a notice; null for any other error. */
export function formRefusal(c: Context, refuseBody: RefuseBody, error: unknown): Response | Promise<Response> | null {
  if (error instanceof BodyTooLargeError) {
    const max = limits.get(c.req);
    return errorNotice(c, 'PREA_MARE', max ? `Fișierul depășește ${Math.floor(max / 1024 / 1024)} MB.` : undefined);
  }
  if (!(error instanceof FormBodyError)) return null;
  const refusal = refuseBody(c, error.fault);
  if ('retryAfterS' in refusal) c.header('Retry-After', String(refusal.retryAfterS));
  return errorNotice(c, refusal.cod, refusal.cauza);
}
