import type { JournalActorName } from '../../services/journal/actors';

// The journal in words a workshop reads: one map of event names (an event not listed shows its
// own name, so nothing new is ever hidden) and one of levels.

export const EVENT_LABEL: Record<string, string> = {
  api_prezentari: 'cerere API de trimitere',
  api_import: 'cerere API de import',
  api_auth_esuat: 'cheie API respinsă',
  api_auth_esuat_rezumat: 'chei API respinse (rezumat)',
  api_auth_limitat: 'prea multe chei API respinse',
  corp_ilizibil_rezumat: 'cereri ilizibile (rezumat)',
  corp_ilizibil_limitat: 'prea multe cereri ilizibile',
  rar_login: 'autentificare la registru',
  creds_rar_salvate: 'credențiale registru salvate',
  creds_rar_sterse: 'credențiale registru șterse',
  cont_on_unmapped_error: 'regula codurilor nemapate schimbată',
  mapare_salvata: 'mapare salvată',
  mapare_stearsa: 'mapare ștearsă',
  regula_text_salvata: 'regulă de text salvată',
  regula_text_stearsa: 'regulă de text ștearsă',
  text_rule_hit: 'regulă de text aplicată',
  submission_requeued: 'trimitere repusă în coadă',
  submission_deleted: 'trimitere ștearsă',
  submission_corrected: 'trimitere corectată',
  worker_claimed: 'trimitere preluată de lucrător',
  worker_sent: 'trimitere acceptată de registru',
  worker_error: 'trimitere în eroare',
  worker_requeued: 'trimitere reprogramată',
  worker_claim_lost: 'preluare pierdută',
  worker_started: 'lucrător pornit',
  worker_stopped: 'lucrător oprit',
  worker_recovered: 'trimiteri blocate recuperate',
  worker_purge: 'curățare date vechi',
  worker_journal_pruned: 'jurnal vechi șters',
  worker_task_failed: 'sarcină a lucrătorului eșuată',
  worker_creds_unreadable: 'credențiale ilizibile',
  worker_after_login_failed: 'eroare după autentificare',
  nomenclator_refreshed: 'nomenclator actualizat',
  nomenclator_refresh_failed: 'actualizare nomenclator eșuată',
  import_incarcat: 'fișier încărcat',
  import_incarcare_esuata: 'încărcare de fișier eșuată',
  import_incarcari_intrerupte: 'încărcări întrerupte',
  import_confirmat: 'import confirmat',
  import_rand_editat: 'rând de import editat',
  import_rand_revizuit: 'rând de import revizuit',
  audit_export: 'export de audit',
  export_intrerupt: 'export întrerupt',
  web_autentificare: 'intrare în panou',
  web_autentificare_esuata: 'intrare în panou refuzată',
  web_iesire: 'ieșire din panou',
  eroare_neprevazuta: 'eroare neprevăzută',
  journal_write_failed: 'scriere în jurnal eșuată',
};

export const LEVEL_LABEL: Record<string, string> = { debug: 'depanare', info: 'informare', warn: 'avertisment', error: 'eroare' };

export const eventLabel = (event: string): string => EVENT_LABEL[event] ?? event;
export const levelLabel = (level: string): string => LEVEL_LABEL[level] ?? level;

/** "de maria@service.ro", "prin API (cheia gw_ab12…)", or the worker for its own events. */
export function actorText(by: JournalActorName | null, event: string): string {
  if (by?.kind === 'user') return by.email ? `de ${by.email}` : `de utilizatorul #${by.id}`;
  if (by?.kind === 'key') return by.prefix ? `prin API (cheia ${by.prefix}…)` : `prin API (cheia #${by.id})`;
  if (by?.kind === 'account') return `prin API (contul ${by.id}, fără cheie)`;
  if (event.startsWith('worker_') || event === 'rar_login' || event.startsWith('nomenclator_')) return 'lucrătorul';
  return '';
}
