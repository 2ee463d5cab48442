import { actorWords, type JournalActorName } from '../../services/journal/actors';

/** "de maria@service.ro", "prin API (cheia gw_ab12…)", or the worker for its own events. */
export function actorText(by: JournalActorName | null, event: string): string {
  const words = actorWords(by);
  if (words) return words;
  if (event.startsWith('worker_') || event === 'rar_login' || event.startsWith('nomenclator_')) return 'lucrătorul';
  return '';
}
