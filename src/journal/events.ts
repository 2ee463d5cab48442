// Every event the journal records, with the words the dashboard's Jurnal shows for it. The one
// list: `journal.write` takes only these names (the compiler refuses any other), and the Jurnal's
// filter offers them. The names are what `app_events.event` and the journal files already hold,
// in the two languages they were written in over time; they stay as stored, because operators'
// queries, alerts and the Jurnal's filter addresses name them. A new event gets an English name.

export const JOURNAL_EVENTS = {
  // The API and the dashboard
  api_prezentari: 'cerere API de trimitere',
  api_import: 'cerere API de import',
  web_import: 'import din panou (încărcare sau confirmare)',
  api_auth_esuat: 'cheie API respinsă',
  api_auth_esuat_rezumat: 'chei API respinse (rezumat)',
  api_auth_limitat: 'prea multe chei API respinse',
  web_test_cheie: 'cheie API verificată în Integrare',
  corp_ilizibil: 'cerere ilizibilă',
  cerere_intrerupta: 'cerere întreruptă',
  corp_ilizibil_rezumat: 'cereri ilizibile (rezumat)',
  corp_ilizibil_limitat: 'prea multe cereri ilizibile',
  web_autentificare: 'intrare în panou',
  web_autentificare_esuata: 'intrare în panou refuzată',
  web_iesire: 'ieșire din panou',
  eroare_neprevazuta: 'eroare neprevăzută',
  // People of an account (docs/accounts-and-people.md)
  account_signed_up: 'cont nou înregistrat',
  user_invited: 'coleg invitat',
  invitation_cancelled: 'invitație anulată',
  invitation_accepted: 'invitație acceptată',
  user_role_changed: 'rol schimbat',
  user_disabled: 'utilizator dezactivat',
  user_enabled: 'utilizator activat din nou',
  reset_link_issued: 'link de resetare a parolei emis de administrator',
  reset_requested: 'resetare a parolei cerută (Am uitat parola)',
  reset_used: 'parolă schimbată prin link',
  session_ended: 'sesiune închisă de utilizator',
  email_failed: 'e-mail netrimis',
  // The account and its rules
  creds_rar_salvate: 'credențiale registru salvate',
  creds_rar_sterse: 'credențiale registru șterse',
  cont_on_unmapped_error: 'regula codurilor nemapate schimbată',
  mapare_salvata: 'mapare salvată',
  mapare_modificata: 'mapare modificată',
  mapare_stearsa: 'mapare ștearsă',
  regula_text_salvata: 'regulă de text salvată',
  regula_text_stearsa: 'regulă de text ștearsă',
  text_rule_hit: 'regulă de text aplicată',
  // Submissions
  submission_requeued: 'trimitere repusă în coadă',
  submission_deleted: 'trimitere ștearsă',
  submission_corrected: 'trimitere corectată',
  submissions_bulk: 'acțiune pe mai multe trimiteri',
  // The import
  import_incarcat: 'fișier încărcat',
  import_incarcare_esuata: 'încărcare de fișier eșuată',
  import_incarcari_intrerupte: 'încărcări întrerupte',
  import_staging_deferred: 'încărcare amânată: baza de date nu răspunde',
  stager_started: 'proces de încărcare pornit',
  stager_stopped: 'proces de încărcare oprit',
  stager_error: 'eroare a procesului de încărcare',
  import_confirmat: 'import confirmat',
  import_rand_editat: 'rând de import editat',
  import_rand_revizuit: 'rând de import revizuit',
  import_rand_lasat_deoparte: 'rând de import lăsat deoparte',
  // Exports
  audit_export: 'export de audit',
  export_intrerupt: 'export întrerupt',
  // The worker and the registry
  rar_login: 'autentificare la registru',
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
  worker_credentials_wait: 'trimiteri amânate: lipsesc credențialele',
  worker_credentials_wait_failed: 'amânare eșuată',
  worker_session_retire_failed: 'sesiune de registru neretrasă',
  worker_database_unavailable: 'baza de date indisponibilă pentru lucrător',
  worker_database_back: 'baza de date disponibilă din nou',
  nomenclator_refreshed: 'nomenclator actualizat',
  nomenclator_refresh_failed: 'actualizare nomenclator eșuată',
  // The journal itself (written to its file when the table cannot take a row)
  journal_write_failed: 'scriere în jurnal eșuată',
  journal_write_deferred: 'scriere în jurnal amânată',
} as const satisfies Record<string, string>;

export type JournalEventName = keyof typeof JOURNAL_EVENTS;

export function isJournalEventName(name: string): name is JournalEventName {
  return Object.hasOwn(JOURNAL_EVENTS, name);
}
