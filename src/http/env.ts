import type { Principal } from '../context';

export type AppEnv = {
  Variables: {
    requestId: string;
    principal: Principal;
    /** The request body (JSON or a multipart upload), read within the size limit by limitBody. */
    rawBody?: Buffer;
  };
};
