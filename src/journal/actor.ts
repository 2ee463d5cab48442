import { actorLabel, type Actor } from '../context';

// Who did a web or API action, as the journal keeps it: the actor's label (`utilizator:12`,
// `cheie_api:5`), never an e-mail or a key. The journal page joins the label to the user's
// e-mail or the key's prefix when it shows the row (services/journal/actors.ts), so a deleted
// user or a changed address never has to be chased through old rows.

/** The field a service spreads into its event's data; nothing when the caller is unknown (the worker). */
export function journalActor(actor: Actor | undefined): { actor?: string } {
  return actor ? { actor: actorLabel(actor) } : {};
}

export type JournalActorRef = { kind: 'user'; id: number } | { kind: 'key'; id: number } | { kind: 'account'; id: number };

/** The reference a stored label names, or null for anything else (older rows, a hostile value). */
export function parseActorLabel(label: unknown): JournalActorRef | null {
  if (typeof label !== 'string') return null;
  const match = /^(utilizator|cheie_api|cont):(\d{1,15})$/.exec(label);
  if (!match) return null;
  const id = Number(match[2]);
  return match[1] === 'utilizator' ? { kind: 'user', id } : match[1] === 'cheie_api' ? { kind: 'key', id } : { kind: 'account', id };
}
