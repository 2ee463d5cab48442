import type { JournalActorName } from '../../services/journal/actors';

/** "de maria@service.ro", "prin API (cheia gw_ab12…)", or the worker for its own events. */
export function actorText(by: JournalActorName | null, event: string): string {
  if (by?.kind === 'user') return by.email ? `de ${by.email}` : `de utilizatorul #${by.id}`;
  if (by?.kind === 'key') return by.prefix ? `prin API (cheia ${by.prefix}…)` : `prin API (cheia #${by.id})`;
  if (by?.kind === 'account') return `prin API (contul ${by.id}, fără cheie)`;
  if (event.startsWith('worker_') || event === 'rar_login' || event.startsWith('nomenclator_')) return 'lucrătorul';
  return '';
}
