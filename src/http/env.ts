import type { Actor } from '../context';

export type AppEnv = {
  Variables: {
    requestId: string;
    actor: Actor;
    /** The request body (JSON or a multipart upload), read within the size limit by limitBody. */
    rawBody?: Buffer;
  };
};
