import type { AppEnv } from '../http/env';
import type { Session } from '../services/users/sessions';

export type WebEnv = {
  Variables: AppEnv['Variables'] & {
    /** Set by the session middleware on every signed-in path. */
    session: Session;
  };
};
