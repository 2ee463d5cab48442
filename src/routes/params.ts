import { NotFoundError } from '../errors';

/** A path id that is not a positive integer names nothing: the same 404 as a missing row. */
export function idParam(raw: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d{1,16}$/.test(raw)) throw new NotFoundError();
  const id = Number(raw);
  if (id < 1 || id > max) throw new NotFoundError();
  return id;
}

/** For integer (int4) keys such as batch and account ids. */
export const INT4_MAX = 2_147_483_647;
