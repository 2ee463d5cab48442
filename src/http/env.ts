import type { Principal } from '../context';

export type AppEnv = {
  Variables: {
    requestId: string;
    principal: Principal;
    /** A JSON body, read within the size limit by limitBody. */
    bodyText?: string;
    /** A multipart upload, read within the size limit by limitBody. */
    bodyBytes?: Buffer;
  };
};
