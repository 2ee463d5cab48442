// The closed error catalog: a code → what went wrong and how to fix it, in Romanian.
// Fed to the API, the web interface and the worker. Services throw the transport-agnostic
// errors at the bottom; only the transports turn their code into a status (src/http/status.ts).

/** What a stored submission can be held or refused for: its `erori` and `reg_error`, never an HTTP error. */
const SUBMISSION_ERRORS = {
  // Content of a submission (needs_data).
  VIN_INVALID: { problema: 'VIN-ul nu este valid.', fix: 'Introduceți cele 17 caractere ale VIN-ului, fără literele O, I și Q.' },
  NRINM_INVALID: { problema: 'Numărul de înmatriculare nu este valid.', fix: 'Folosiți 1–10 litere și cifre, fără spații sau cratime (ex. B123ABC).' },
  DATA_INVALIDA: { problema: 'Data prestației nu este o dată validă.', fix: 'Scrieți data în forma AAAA-LL-ZZ (ex. 2025-03-14).' },
  DATA_PREA_VECHE: {
    problema: 'Data prestației este anterioară datei de 2024-12-01.',
    fix: 'Raportarea este obligatorie doar pentru prestațiile de la 2024-12-01; verificați data.',
  },
  DATA_IN_VIITOR: { problema: 'Data prestației este în viitor.', fix: 'Folosiți data la care s-a făcut prestația (ora României).' },
  ODOMETRU_INVALID: { problema: 'Valoarea odometrului nu este numerică.', fix: 'Trimiteți kilometrajul ca număr (ex. 154200).' },
  ODOMETRU_ZECIMAL: {
    problema: 'Odometrul nu este un număr întreg de kilometri.',
    fix: 'Scrieți kilometrajul întreg, fără zecimale: 87400 (sau 87.400, cu punct la mii).',
  },
  ODOMETRU_INITIAL_LIPSA: { problema: 'Lipsește odometrul inițial.', fix: 'Operațiile R-ODO și I-ODO cer odometruInitial; completați-l.' },
  ODOMETRU_INVERSAT: { problema: 'Odometrul inițial este mai mare decât cel final.', fix: 'Verificați valorile: odometruInitial trebuie să fie cel mult odometruFinal.' },
  PRESTATII_GOALE: { problema: 'Lista de prestații este goală.', fix: 'Adăugați cel puțin o operație în prestatii.' },
  IMAGINE_INVALIDA: { problema: 'Imaginea nu este base64 valid.', fix: 'Trimiteți conținutul fișierului codat base64, fără prefixul „data:”.' },
  TEXT_NEPERMIS: {
    problema: 'Textul conține un caracter care nu poate fi păstrat.',
    fix: 'Ștergeți din celulă caracterele invizibile (de exemplu NUL) și încărcați fișierul din nou sau corectați rândul.',
  },
  TEXT_PREA_LUNG: {
    problema: 'Textul depășește lungimea permisă de API.',
    fix: 'Scurtați denumirea operației la cel mult 500 de caractere (în fișier sau corectând rândul).',
  },
  PREA_MULTE_PRESTATII: {
    problema: 'Rândul are mai multe operații decât acceptă API-ul.',
    fix: 'Împărțiți operațiile pe mai multe rânduri, cel mult 200 pe rând (în fișier sau corectând rândul).',
  },
  COD_NEMAPAT: {
    problema: 'Există operații fără corespondent în nomenclatorul registrului.',
    fix: 'Asociați codurile în editorul de mapări (sau prin POST /v1/mapari), apoi retrimiteți.',
  },
  // Delivery to the registry (reg_error), written by the worker.
  REG_LOGIN_RESPINS: { problema: 'Registrul a respins autentificarea.', fix: 'Verificați utilizatorul și parola registrului în contul dvs., apoi repuneți trimiterea în coadă.' },
  REG_CONTINUT_RESPINS: { problema: 'Registrul a refuzat conținutul înregistrării.', fix: 'Corectați datele conform mesajului registrului și retrimiteți.' },
  REG_EROARE_SERVER: { problema: 'Registrul a răspuns cu o eroare internă.', fix: 'Verificați în registru dacă înregistrarea există; dacă nu, repuneți-o în coadă.' },
  REG_TOKEN_EXPIRAT: { problema: 'Sesiunea la registru a expirat.', fix: 'Nu este nevoie de nimic: trimiterea se reia automat.' },
  REG_CREDENTIALE_LIPSA: { problema: 'Nu există credențiale pentru registru.', fix: 'Salvați credențialele registrului în cont sau trimiteți reg_credentials.' },
  REG_RETEA: { problema: 'Registrul nu a putut fi contactat.', fix: 'Se reîncearcă automat; dacă persistă, verificați adresa registrului.' },
  REG_EROARE: { problema: 'Eroare la transmiterea către registru.', fix: 'Consultați jurnalul pentru detalii.' },
} as const satisfies Record<string, { problema: string; fix: string }>;

/** What a request can fail with: each code has its one HTTP status (src/http/status.ts). */
const REQUEST_ERRORS = {
  // HTTP-level errors.
  CERERE_INVALIDA: { problema: 'Cererea nu este validă.', fix: 'Corectați parametrii indicați și reîncercați.' },
  // The dashboard's forms and filters: the same words, answered 422 (the form is shown again).
  FORMULAR_INVALID: { problema: 'Cererea nu este validă.', fix: 'Corectați câmpurile indicate și trimiteți din nou.' },
  NEAUTENTIFICAT: { problema: 'Cheia API lipsește sau nu este validă.', fix: 'Trimiteți cheia în antetul X-API-Key sau Authorization: Bearer.' },
  NEGASIT: { problema: 'Resursa nu există.', fix: 'Verificați identificatorul.' },
  CONFLICT_STARE: { problema: 'Operația nu este permisă în starea curentă.', fix: 'Verificați starea resursei.' },
  PREA_MULTE_CERERI: {
    problema: 'Prea multe cereri într-un timp scurt.',
    fix: 'Așteptați numărul de secunde din antetul Retry-After, apoi reîncercați; verificați că folosiți cheia corectă.',
  },
  PREA_MARE: { problema: 'Cererea depășește dimensiunea maximă.', fix: 'Trimiteți un corp mai mic.' },
  TIP_CORP_NESUPORTAT: {
    problema: 'Calea nu primește un corp de acest tip.',
    fix: 'Trimiteți JSON (Content-Type: application/json); un fișier (multipart/form-data) se trimite doar la POST /v1/import.',
  },
  CORP_PREA_LENT: {
    problema: 'Corpul cererii sosește prea încet.',
    fix: 'Trimiteți corpul întreg imediat după antete; pe o legătură lentă, încercați din nou sau trimiteți un fișier mai mic.',
  },
  PREA_MULTE_CONEXIUNI: {
    problema: 'Prea multe conexiuni deschise de la aceeași adresă.',
    fix: 'Închideți conexiunile nefolosite și refolosiți una deschisă (keep-alive); reîncercați după numărul de secunde din antetul Retry-After.',
  },
  CORP_ILIZIBIL: {
    problema: 'Corpul cererii nu poate fi citit.',
    fix: 'Reîncărcați pagina și trimiteți formularul din nou; un program trebuie să trimită corpul întreg, în formatul declarat în Content-Type.',
  },
  IMAGINE_PREA_MARE: {
    problema: 'Imaginea (b64Image) depășește dimensiunea maximă.',
    fix: 'Micșorați fotografia (de exemplu la 1600 px pe latura mare) sau trimiteți-o în format JPEG.',
  },
  AUTENTIFICARE_ESUATA: {
    problema: 'E-mailul sau parola nu sunt corecte.',
    fix: 'Verificați datele și încercați din nou; dacă ați uitat parola, folosiți „Am uitat parola” sau cereți administratorului contului un link de resetare.',
  },
  INTERZIS: {
    problema: 'Rolul dvs. în cont nu permite această acțiune.',
    fix: 'Cereți administratorului contului să o facă sau să vă schimbe rolul (Cont → Oameni).',
  },
  LINK_INVALID: {
    problema: 'Linkul nu mai este valabil.',
    fix: 'Un link se folosește o singură dată și expiră; cereți administratorului contului unul nou sau folosiți „Am uitat parola”.',
  },
  INREGISTRARE_INCHISA: {
    problema: 'Înregistrarea conturilor noi este închisă pe acest gateway.',
    fix: 'Cereți operatorului gateway-ului un cont, sau administratorului contului service-ului o invitație.',
  },
  NEAUTORIZAT_CSRF: { problema: 'Cererea nu a putut fi verificată (lipsește jetonul de siguranță sau vine de pe alt site).', fix: 'Reîncărcați pagina și repetați acțiunea.' },
  EROARE_INTERNA: { problema: 'A apărut o eroare neprevăzută.', fix: 'Reîncercați; dacă persistă, trimiteți request_id echipei de suport.' },
  BAZA_INDISPONIBILA: {
    problema: 'Baza de date nu poate fi contactată acum (o repornire sau o comutare pe altă mașină).',
    fix: 'Reîncercați după numărul de secunde din antetul Retry-After: nimic nu a rămas salvat pe jumătate, iar o prezentare trimisă din nou nu se înregistrează de două ori.',
  },
  // File import (issue 4).
  IMPORT_PREA_MULTE_INCARCARI: {
    problema: 'Contul are deja numărul maxim de fișiere în curs de încărcare.',
    fix: 'Așteptați să se termine încărcările în curs (cel puțin secundele din antetul Retry-After), apoi reîncercați.',
  },
  SERVER_OCUPAT: {
    problema: 'Serverul încarcă acum numărul maxim de fișiere.',
    fix: 'Reîncercați după numărul de secunde din antetul Retry-After; nimic nu a fost salvat.',
  },
  // The cost budget of each account (http/cost-budget.ts, issue 32).
  CONT_PREA_MULTE_OPERATII: {
    problema: 'Contul a atins pentru moment limita de operații costisitoare (fișiere încărcate, corpuri mari, pagini mari, exporturi, căutări, salvări care reclasifică).',
    fix: 'Așteptați numărul de secunde din antetul Retry-After, apoi reîncercați; cererile obișnuite ale contului sunt servite în continuare. Cereți pagini de cel mult 100 de rânduri.',
  },
  SERVER_OCUPAT_OPERATII: {
    problema: 'Serverul execută acum numărul maxim de operații costisitoare.',
    fix: 'Reîncercați după numărul de secunde din antetul Retry-After; nimic nu a fost salvat.',
  },
  IMPORT_TIP_NESUPORTAT: { problema: 'Fișierul nu este un tabel xlsx sau csv.', fix: 'Salvați tabelul ca „Excel Workbook (.xlsx)” sau „CSV UTF-8” și încărcați-l din nou.' },
  IMPORT_FISIER_GOL: {
    problema: 'Fișierul nu conține rânduri de importat.',
    fix: 'Verificați că ați exportat foaia cu date: un rând de antet urmat de câte un rând pe prestație.',
  },
  IMPORT_FARA_ANTET: {
    problema: 'Fișierul nu are un rând de antet.',
    fix: 'Adăugați deasupra datelor un rând cu numele coloanelor (ex. VIN, Nr. înmatriculare, Data prestației).',
  },
  IMPORT_PAROLAT: { problema: 'Fișierul este protejat cu parolă.', fix: 'Deschideți-l în Excel sau LibreOffice, eliminați parola (Fișier → Protejare) și salvați-l din nou.' },
  IMPORT_CODARE: {
    problema: 'Codarea caracterelor fișierului CSV nu este recunoscută.',
    fix: 'Salvați fișierul ca „CSV UTF-8”; sunt acceptate și UTF-16 cu BOM și Windows-1250 / ISO-8859-2.',
  },
  IMPORT_FISIER_CORUPT: { problema: 'Fișierul nu poate fi citit.', fix: 'Deschideți-l în aplicația de calcul tabelar și salvați-l din nou ca xlsx sau csv.' },
  IMPORT_DBF_CORUPT: {
    problema: 'Tabela .dbf nu poate fi citită: antetul ei nu corespunde conținutului.',
    fix: 'Deschideți tabela în programul ei, refaceți-o (PACK sau COPY TO într-o tabelă nouă) și încărcați-o din nou; cu câmpuri memo, încărcați tabela și fișierul .fpt / .dbt împreună, într-o arhivă zip.',
  },
  IMPORT_DBF_MEMO: {
    problema: 'Tabela .dbf are câmpuri memo, dar fișierul lor nu a fost încărcat.',
    fix: 'Puneți într-o arhivă zip tabela (.dbf) și fișierul memo cu același nume (.fpt la FoxPro, .dbt la dBase / Clipper) și încărcați arhiva.',
  },
  IMPORT_DBF_CODARE: {
    problema: 'Pagina de cod a tabelei .dbf nu este una pe care o citim.',
    fix: 'Alegeți la încărcare pagina de cod a programului (de obicei Windows-1250 sau DOS 852) și încărcați tabela din nou.',
  },
  IMPORT_PREA_MULTE_RANDURI: { problema: 'Fișierul are prea multe rânduri.', fix: 'Împărțiți fișierul în mai multe fișiere mai mici.' },
  IMPORT_PREA_MULTE_COLOANE: { problema: 'Fișierul are prea multe coloane.', fix: 'Exportați doar coloanele necesare prezentării.' },
  IMPORT_CELULA_PREA_LUNGA: {
    problema: 'O celulă, un antet sau un nume de foaie al fișierului este prea lung.',
    fix: 'O celulă poate avea cel mult 32.767 de caractere (limita Excel), un rând de CSV cel mult 128 KB, antetul CSV cel mult 64 KB, un nume de foaie cel mult 255 de caractere: scurtați sau ștergeți valoarea indicată și încărcați fișierul din nou.',
  },
  IMPORT_PREA_MULTE_CELULE_UNITE: {
    problema: 'O foaie a fișierului are prea multe zone de celule unite (îmbinate).',
    fix: 'Anulați îmbinarea celulelor (Pornire → Îmbinare și centrare → Anulare îmbinare celule) sau împărțiți fișierul în fișiere mai mici.',
  },
  IMPORT_ARHIVA_PREA_MARE: {
    problema: 'Conținutul dezarhivat al fișierului xlsx depășește limita.',
    fix: 'Împărțiți fișierul sau eliminați foile și imaginile care nu sunt necesare.',
  },
  IMPORT_FOAIE: { problema: 'Foaia aleasă nu poate fi importată.', fix: 'Alegeți una dintre foile listate; foile importate împreună trebuie să aibă același antet.' },
  IMPORT_MAPARE_INVALIDA: { problema: 'Maparea coloanelor nu este validă.', fix: 'Asociați fiecare câmp cu o singură coloană existentă în antetul fișierului.' },
  IMPORT_DEJA_CONFIRMAT: { problema: 'Importul a fost deja confirmat.', fix: 'Un import confirmat nu se mai modifică; încărcați fișierul din nou pentru alte rânduri.' },
  IMPORT_CONFIRMARE_NUMAR: { problema: 'Numărul de rânduri confirmat nu corespunde.', fix: 'Reîncărcați previzualizarea și confirmați numărul de rânduri afișat (n_to_commit).' },
  IMPORT_IN_CURS: {
    problema: 'Fișierul este încă în curs de încărcare.',
    fix: 'Așteptați până când GET /v1/import/{id} (sau previzualizarea) arată status „staged”, apoi reîncercați.',
  },
  IMPORT_ESUAT: {
    problema: 'Încărcarea fișierului a eșuat; importul nu are rânduri.',
    fix: 'Corectați fișierul după motivul din câmpul error al importului și încărcați-l din nou.',
  },
  IMPORT_INTRERUPT: { problema: 'Încărcarea fișierului a fost întreruptă.', fix: 'Încărcați fișierul din nou.' },
  IMPORT_CONFIRMARE_HASH: {
    problema: 'Rândurile s-au schimbat de la previzualizare.',
    fix: 'Reîncărcați previzualizarea, verificați rândurile și confirmați din nou cu noul rows_hash.',
  },
} as const satisfies Record<string, { problema: string; fix: string }>;

export const CATALOG = { ...SUBMISSION_ERRORS, ...REQUEST_ERRORS } as const;

export type ErrorCode = keyof typeof CATALOG;
/** The codes a request can fail with (an AppError's, an HTTP error envelope's). */
export type RequestErrorCode = keyof typeof REQUEST_ERRORS;
export const REQUEST_ERROR_CODES = Object.keys(REQUEST_ERRORS) as RequestErrorCode[];

/** One entry of `erori`: the original `{field, message}` plus the three-level detail. */
export interface ContentError {
  field: string;
  message: string;
  cod: ErrorCode;
  problema: string;
  cauza: string;
  fix: string;
}

export function contentError(cod: ErrorCode, field: string, cauza: string): ContentError {
  const { problema, fix } = CATALOG[cod];
  return { field, message: `${problema} ${cauza}`, cod, problema, cauza, fix };
}

/** The three-level form of a registry error, as stored in `reg_error`. */
export interface RegError {
  cod: string;
  problema: string;
  cauza: string;
  fix: string;
  mesaj_registru?: string | null;
  http_status?: number | null;
}

/** Reads a stored `reg_error` of any form (older rows hold a plain string) as the three-level form. */
export function readRegError(stored: unknown): RegError | null {
  if (stored === null || stored === undefined || stored === '') return null;
  if (typeof stored === 'string') {
    return { cod: 'REG_EROARE', ...CATALOG.REG_EROARE, cauza: stored, mesaj_registru: stored };
  }
  if (typeof stored === 'object') {
    const s = stored as Record<string, unknown>;
    const cod = typeof s.cod === 'string' ? s.cod : 'REG_EROARE';
    const known = (CATALOG as Record<string, { problema: string; fix: string }>)[cod] ?? CATALOG.REG_EROARE;
    const text = (k: string) => (typeof s[k] === 'string' ? (s[k] as string) : undefined);
    return {
      cod,
      problema: text('problema') ?? known.problema,
      cauza: text('cauza') ?? text('mesaj') ?? text('message') ?? text('mesaj_registru') ?? '',
      fix: text('fix') ?? known.fix,
      mesaj_registru: text('mesaj_registru') ?? text('mesaj') ?? null,
      http_status: typeof s.http_status === 'number' ? s.http_status : null,
    };
  }
  return { cod: 'REG_EROARE', ...CATALOG.REG_EROARE, cauza: String(stored) };
}

/**
 * The one error a service throws for a request it cannot take: a catalog code (the transport
 * reads its HTTP status from the code) and the cause in Romanian. The API renders it as the
 * JSON envelope, the web as an error notice; neither repeats what was sent.
 */
export class AppError extends Error {
  constructor(
    readonly cod: RequestErrorCode,
    readonly cauza: string,
    readonly field?: string,
  ) {
    super(`${cod}: ${cauza}`);
  }
}

export class NotFoundError extends AppError {
  constructor() {
    super('NEGASIT', 'Resursa cerută nu există.');
  }
}

export class ConflictError extends AppError {
  constructor(cauza: string) {
    super('CONFLICT_STARE', cauza);
  }
}

export class BadRequestError extends AppError {
  constructor(cauza: string, field?: string) {
    super('CERERE_INVALIDA', cauza, field);
  }
}
