import { z } from 'zod';
import { IsoDateParam } from '../../http/validate';
import { blankless } from '../ui/query';

export const JurnalQuery = z.object({
  eveniment: blankless(
    z
      .string()
      .trim()
      .regex(/^[a-z0-9_]{1,64}$/, 'un nume de eveniment: litere mici, cifre și _')
      .optional(),
  ),
  nivel: blankless(z.enum(['debug', 'info', 'warn', 'error']).optional()),
  de_la: blankless(IsoDateParam.optional()),
  pana_la: blankless(IsoDateParam.optional()),
  cerere: blankless(z.string().trim().max(64).optional()),
  inainte: blankless(z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional()),
});
export type JurnalQuery = z.infer<typeof JurnalQuery>;

export function jurnalQueryString(q: JurnalQuery, changes: Partial<JurnalQuery> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...q, ...changes })) if (v !== undefined && v !== '') params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
}
