import type { Actor } from '../context';
import type { UploadAdmission } from '../services/import';

export type AppEnv = {
  Variables: {
    requestId: string;
    actor: Actor;
    /** The request body (JSON or a multipart upload), read within the size limit by limitBody. */
    rawBody?: Buffer;
    /** The place of an upload let in by admitUpload. */
    upload?: UploadAdmission;
  };
};
