import { BATCH, CAPTURED, COMMIT, DRY_RUN, isCaptured, KEY_PLACEHOLDER, PREVIEW, SUBMIT, UPLOAD, type Operation } from '../operations';
import { jsonOf, literal, pathParts, type Syntax } from './literals';
import type { Program } from './types';

// Harbour with hbcurl. The program's strings are in its code page (ROWIN: Windows-1250);
// hb_jsonEncode(..., "UTF8") sends them as UTF-8 and hb_jsonDecode(..., "UTF8") reads the
// answer back into that code page.

const variable = (name: string) => `${isCaptured(name) && CAPTURED[name] === 'string' ? 'c' : 'n'}${name.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`;
const str = (s: string) => (s.includes('"') ? `'${s}'` : `"${s}"`);

const harbour: Syntax = {
  string: str,
  object: (entries) => `{ ${entries.map(([k, v]) => `${str(k)} => ${v}`).join(', ')} }`,
  array: (items) => `{ ${items.join(', ')} }`,
  true: '.T.',
  false: '.F.',
  null: 'NIL',
  variable,
};

const path = (op: Operation) =>
  pathParts(op.path)
    .map((p) => (typeof p === 'string' ? str(p) : `hb_ntos( ${variable(p.variable)} )`))
    .join(' + ');
const names = (op: Operation) => `{ ${op.reads.map(str).join(', ')} }`;
const JSON_TYPE = '"application/json; charset=utf-8"';

const HEAD = (base: string, what: string) => `// ${what} Harbour 3.2+ cu hbcurl: hbmk2 program.prg hbcurl.hbc
#require "hbcurl"
#include "hbcurl.ch"

#define BASE_URL "${base}"
#define API_KEY  "${KEY_PLACEHOLDER}"

REQUEST HB_CODEPAGE_ROWIN
`;

const FUNCTIONS = `
// Trimite o cerere; întoarce răspunsul decodat (un hash) sau NIL după ce afișează eroarea.
STATIC FUNCTION CallApi( cMethod, cPath, cBody, cContentType )
   LOCAL hCurl, nResult, nStatus, cAnswer, xAnswer := NIL
   LOCAL aHeaders := { "X-API-Key: " + API_KEY }

   IF cContentType != NIL
      AAdd( aHeaders, "Content-Type: " + cContentType )
   ENDIF
   IF Empty( hCurl := curl_easy_init() )
      ? "curl_easy_init a eșuat"
      RETURN NIL
   ENDIF
   curl_easy_setopt( hCurl, HB_CURLOPT_URL, BASE_URL + cPath )
   curl_easy_setopt( hCurl, HB_CURLOPT_CUSTOMREQUEST, cMethod )
   curl_easy_setopt( hCurl, HB_CURLOPT_HTTPHEADER, aHeaders )
   IF cBody != NIL
      curl_easy_setopt( hCurl, HB_CURLOPT_POSTFIELDS, cBody )
   ENDIF
   curl_easy_setopt( hCurl, HB_CURLOPT_DL_BUFF_SETUP )
   nResult := curl_easy_perform( hCurl )
   IF nResult == HB_CURLE_OK
      nStatus := curl_easy_getinfo( hCurl, HB_CURLINFO_RESPONSE_CODE )
      cAnswer := curl_easy_dl_buff_get( hCurl )
      IF nStatus >= 400
         ? "HTTP " + hb_ntos( nStatus ) + ": " + hb_UTF8ToStr( cAnswer )
      ELSE
         hb_jsonDecode( cAnswer, @xAnswer, "UTF8" )
      ENDIF
   ELSE
      ? "curl: " + curl_easy_strerror( nResult )
   ENDIF
   curl_easy_cleanup( hCurl )
   RETURN xAnswer

// Afișează câmpurile cerute; o listă (erori) câte un element pe linie, fără cele nule.
STATIC PROCEDURE Show( hAnswer, aNames )
   LOCAL cName, xValue, hItem

   FOR EACH cName IN aNames
      xValue := hb_HGetDef( hAnswer, cName, NIL )
      IF HB_ISARRAY( xValue )
         FOR EACH hItem IN xValue
            ? cName + ": " + hItem[ "field" ] + " - " + hItem[ "message" ]
         NEXT
      ELSEIF xValue != NIL
         ? cName + ": " + hb_ValToStr( xValue )
      ENDIF
   NEXT
   RETURN
`;

export function harbourSubmission(base: string): Program {
  const code = `${HEAD(base, 'Prezentare prin API: dry run, apoi trimiterea.')}
PROCEDURE Main()
   LOCAL hPrezentare := ${literal(jsonOf(DRY_RUN), harbour)}
   LOCAL hVerdict, hRezultat

   hb_cdpSelect( "ROWIN" )
   curl_global_init()
   hVerdict := CallApi( "${DRY_RUN.method}", ${path(DRY_RUN)}, hb_jsonEncode( hPrezentare, .F., "UTF8" ), ${JSON_TYPE} )
   IF hVerdict != NIL
      Show( hVerdict, ${names(DRY_RUN)} )
      IF hVerdict[ "status_estimat" ] == "queued"
         hRezultat := CallApi( "${SUBMIT.method}", ${path(SUBMIT)}, hb_jsonEncode( hPrezentare, .F., "UTF8" ), ${JSON_TYPE} )
         IF hRezultat != NIL
            Show( hRezultat, ${names(SUBMIT)} )
         ENDIF
      ENDIF
   ENDIF
   curl_global_cleanup()
   RETURN
${FUNCTIONS}`;
  return { filename: 'prezentare.prg', howToRun: 'hbmk2 prezentare.prg hbcurl.hbc && ./prezentare', code };
}

export function harbourUpload(base: string): Program {
  const nl = 'Chr( 13 ) + Chr( 10 )';
  const code = `${HEAD(base, 'Import al tabelei programului (.dbf): încărcare, previzualizare, confirmare.')}
// Tabela de prestații a programului; gateway-ul o citește așa cum este (fără export în csv).
#define TABLE_NAME "prestatii"
// Gol: pagina de cod din antetul tabelei. Tabelele scrise de Clipper pentru DOS sunt de obicei
// în 852 și nu o notează în antet: "852" (sau "1250") o spune gateway-ului.
#define CODEPAGE   ""

REQUEST DBFCDX

PROCEDURE Main()
   LOCAL cBoundary := "----gateway" + hb_ntos( hb_Random( 1, 999999999 ) )
   LOCAL cTable := hb_DirTemp() + "gw" + hb_ntos( hb_Random( 1, 999999999 ) ) + ".dbf"
   LOCAL cBody, hIncarcare, hPrevizualizare, hConfirmare
   LOCAL ${variable('batch_id')}, ${variable('n_to_commit')}, ${variable('rows_hash')}

   hb_cdpSelect( "ROWIN" )
   curl_global_init()
   // Prestațiile ultimelor 7 zile, copiate într-o tabelă temporară, fără câmpuri memo (o tabelă
   // cu memo se trimite într-o arhivă zip, cu fișierul ei .fpt / .dbt). Numele câmpurilor sunt
   // ale tabelei dumneavoastră; coloanele se potrivesc o dată, pe ecranul importului.
   rddSetDefault( "DBFCDX" )
   USE ( TABLE_NAME ) SHARED NEW ALIAS GWSURSA
   COPY TO ( cTable ) FIELDS VIN, NR_INM, DATA, KM_FINAL, COD_OP, DENUMIRE FOR GWSURSA->DATA >= Date() - 7
   GWSURSA->( dbCloseArea() )
   // multipart/form-data scris de mână, cu tabela (octeții ei, neschimbați) în câmpul file.
   cBody := "--" + cBoundary + ${nl} + ;
      'Content-Disposition: form-data; name="file"; filename="' + TABLE_NAME + '.dbf"' + ${nl} + ;
      "Content-Type: application/octet-stream" + ${nl} + ${nl} + ;
      hb_MemoRead( cTable ) + ${nl}
   IF ! Empty( CODEPAGE )
      cBody += "--" + cBoundary + ${nl} + 'Content-Disposition: form-data; name="codepage"' + ${nl} + ${nl} + CODEPAGE + ${nl}
   ENDIF
   cBody += "--" + cBoundary + "--" + ${nl}
   FErase( cTable )
   hIncarcare := CallApi( "${UPLOAD.method}", ${path(UPLOAD)}, cBody, "multipart/form-data; boundary=" + cBoundary )
   IF hIncarcare != NIL
      Show( hIncarcare, ${names(UPLOAD)} )
      ${variable('batch_id')} := hIncarcare[ "batch_id" ]
      // Fișierul se încarcă în fundal: se întreabă din nou cât timp este „queued” (în așteptare) sau „staging”.
      DO WHILE hIncarcare != NIL .AND. ( hIncarcare[ "status" ] == "queued" .OR. hIncarcare[ "status" ] == "staging" )
         hb_idleSleep( 1 )
         hIncarcare := CallApi( "${BATCH.method}", ${path(BATCH)}, NIL, NIL )
      ENDDO
      IF hIncarcare != NIL .AND. hIncarcare[ "status" ] == "staged"
         hPrevizualizare := CallApi( "${PREVIEW.method}", ${path(PREVIEW)}, NIL, NIL )
      ENDIF
      IF hPrevizualizare != NIL
         Show( hPrevizualizare, ${names(PREVIEW)} )
         ${variable('n_to_commit')} := hPrevizualizare[ "n_to_commit" ]
         ${variable('rows_hash')} := hPrevizualizare[ "rows_hash" ]
         hConfirmare := CallApi( "${COMMIT.method}", ${path(COMMIT)}, hb_jsonEncode( ${literal(jsonOf(COMMIT), harbour)}, .F., "UTF8" ), ${JSON_TYPE} )
         IF hConfirmare != NIL
            Show( hConfirmare, ${names(COMMIT)} )
         ENDIF
      ENDIF
   ENDIF
   curl_global_cleanup()
   RETURN
${FUNCTIONS}`;
  return { filename: 'import.prg', howToRun: 'hbmk2 import.prg hbcurl.hbc && ./import', code };
}
