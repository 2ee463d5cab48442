import type { AppEnv } from '../http/env';
import type { AccountAlerts } from '../services/accounts/alerts';
import type { Session } from '../services/users/sessions';

export type WebEnv = {
  Variables: AppEnv['Variables'] & {
    /** Set by the session middleware on every signed-in path. */
    session: Session;
    /** Set by web/alerts.ts for a request that renders a whole page; absent for a fragment. */
    alerts?: AccountAlerts;
  };
};
