import { z } from 'zod';

/** A form sends an empty field for a filter left blank: that is no filter. */
export const blankless = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (v === '' ? undefined : v), schema);
