import { actorLabel, type Actor } from '../../context';

/** Who changed a mapping or a text rule, as its journal event names them. */
export interface ChangedBy {
  actor: Actor;
  /** A web user's e-mail, so that the history reads as a person rather than an id. */
  email?: string;
}

export const byData = (by: ChangedBy | undefined) => (by ? { utilizator: actorLabel(by.actor), ...(by.email ? { email: by.email } : {}) } : {});
