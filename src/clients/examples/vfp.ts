import { BATCH, CAPTURED, COMMIT, DRY_RUN, exampleJson, isCaptured, KEY_PLACEHOLDER, PREVIEW, SUBMIT, UPLOAD, type Operation } from '../operations';
import { jsonOf, pathParts, quoted } from './literals';
import type { Program } from './types';

// Visual FoxPro 9 through MSXML2.ServerXMLHTTP.6.0. VFP strings are bytes in the program's code
// page (Windows-1250 for Romanian data): a body goes out as UTF-8 by STRCONV(..., 9) and as a
// byte array by CREATEBINARY (a plain string would be converted again by COM); the answer's
// bytes come back through STRCONV(..., 11). VFP has no JSON reader: JsonText reads a top-level
// field of the gateway's compact answers.

const hungarian = (name: string) => `lc${name.replace(/(^|_)(\w)/g, (_m, _s, c: string) => c.toUpperCase())}`;
/** A VFP string literal; one longer than VFP's 255-character limit is split with `+ ;`. */
const vfpString = (s: string) => {
  const chunks = s.match(/[\s\S]{1,200}/g) ?? [''];
  return chunks.map((c) => `'${c}'`).join(' + ;\n   ');
};
const path = (op: Operation) =>
  pathParts(op.path)
    .map((p) => (typeof p === 'string' ? quoted(p) : hungarian(p.variable)))
    .join(' + ');
const show = (answer: string, op: Operation) => op.reads.map((name) => `? "${name}: " + JsonText(${answer}, "${name}")`).join('\n');

/** The commit's JSON with the captured values put in (numbers bare, strings quoted). */
function commitBody(): string {
  return JSON.stringify(jsonOf(COMMIT))
    .split(/"\{(\w+)\}"/)
    .map((part, i) => {
      if (i % 2 === 0) return `'${part}'`;
      return isCaptured(part) && CAPTURED[part] === 'string' ? `'"' + ${hungarian(part)} + '"'` : hungarian(part);
    })
    .filter((p) => p !== "''")
    .join(' + ');
}

const HEAD = (base: string, what: string) => `* ${what} Visual FoxPro 9, MSXML2.ServerXMLHTTP.6.0.
* Datele programului sunt în Windows-1250; gateway-ul primește UTF-8: STRCONV(..., 9) la trimitere,
* STRCONV(..., 11) la citirea răspunsului.
#DEFINE BASE_URL "${base}"
#DEFINE API_KEY "${KEY_PLACEHOLDER}"
#DEFINE CRLF CHR(13) + CHR(10)
`;

const FUNCTIONS = `
* Trimite o cerere; întoarce răspunsul (text în Windows-1250) sau .NULL. după ce afișează eroarea.
FUNCTION CallApi(tcMethod, tcPath, tvBody, tcContentType)
   LOCAL loHttp, loError, lcAnswer
   lcAnswer = .NULL.
   TRY
      loHttp = CREATEOBJECT("MSXML2.ServerXMLHTTP.6.0")
      loHttp.Open(tcMethod, BASE_URL + tcPath, .F.)
      loHttp.setRequestHeader("X-API-Key", API_KEY)
      IF !EMPTY(tcContentType)
         loHttp.setRequestHeader("Content-Type", tcContentType)
      ENDIF
      IF ISNULL(tvBody)
         loHttp.Send()
      ELSE
         loHttp.Send(tvBody)
      ENDIF
      IF loHttp.Status >= 400
         ? "HTTP " + TRANSFORM(loHttp.Status) + ": " + STRCONV(loHttp.responseBody, 11)
      ELSE
         lcAnswer = STRCONV(loHttp.responseBody, 11)
      ENDIF
   CATCH TO loError
      ? "Eroare: " + loError.Message
   ENDTRY
   RETURN lcAnswer
ENDFUNC

* Valoarea unui câmp de pe primul nivel al răspunsului: text fără ghilimele, număr, sau o listă ca text.
FUNCTION JsonText(tcJson, tcName)
   LOCAL lcRest
   lcRest = STREXTRACT(tcJson, '"' + tcName + '":', "")
   DO CASE
   CASE LEFT(lcRest, 1) == '"'
      RETURN STREXTRACT(lcRest, '"', '"')
   CASE LEFT(lcRest, 1) == "["
      RETURN STREXTRACT(lcRest, "[", "]", 1, 4)
   OTHERWISE
      RETURN LEFT(lcRest, MIN(AT(",", lcRest + ","), AT("}", lcRest + "}")) - 1)
   ENDCASE
ENDFUNC
`;

export function vfpSubmission(base: string): Program {
  const code = `${HEAD(base, 'Prezentare prin API: dry run, apoi trimiterea.')}
LOCAL lcPrezentare, lcVerdict, lcRezultat
lcPrezentare = ${vfpString(exampleJson(DRY_RUN))}

lcVerdict = CallApi("${DRY_RUN.method}", ${path(DRY_RUN)}, CREATEBINARY(STRCONV(lcPrezentare, 9)), "application/json; charset=utf-8")
IF ISNULL(lcVerdict)
   RETURN
ENDIF
${show('lcVerdict', DRY_RUN)}
IF !(JsonText(lcVerdict, "status_estimat") == "queued")
   RETURN
ENDIF

lcRezultat = CallApi("${SUBMIT.method}", ${path(SUBMIT)}, CREATEBINARY(STRCONV(lcPrezentare, 9)), "application/json; charset=utf-8")
IF !ISNULL(lcRezultat)
${show('lcRezultat', SUBMIT).replace(/^/gm, '   ')}
ENDIF
RETURN
${FUNCTIONS}`;
  return { filename: 'prezentare.prg', howToRun: 'DO prezentare.prg', code };
}

export function vfpUpload(base: string): Program {
  const code = `${HEAD(base, 'Import al tabelei programului (.dbf): încărcare, previzualizare, confirmare.')}
* Tabela de prestații a programului; gateway-ul o citește așa cum este (fără export în csv).
#DEFINE TABLE_NAME "prestatii"
* Gol: pagina de cod din antetul tabelei (CPDBF()). "1250" sau "852" dacă antetul o numește greșit.
#DEFINE CODEPAGE ""
LOCAL lcBoundary, lcBody, lcTable, lcIncarcare, lcPrevizualizare, lcConfirmare, lcBatchId, lcNToCommit, lcRowsHash

* Prestațiile ultimelor 7 zile, copiate într-o tabelă temporară (COPY TO păstrează pagina de cod
* a tabelei). Fără câmpuri memo: o tabelă cu memo se trimite într-o arhivă zip, cu fișierul ei .fpt.
* Numele câmpurilor sunt ale tabelei dumneavoastră; coloanele se potrivesc o dată, pe ecranul importului.
lcTable = ADDBS(SYS(2023)) + "gw" + SYS(2015) + ".dbf"
USE (TABLE_NAME) IN 0 SHARED AGAIN ALIAS gwsursa
SELECT gwsursa
COPY TO (lcTable) FIELDS vin, nr_inm, data, km_final, cod_op, denumire FOR data >= DATE() - 7
USE IN gwsursa

* multipart/form-data scris de mână, cu tabela (octeții ei, neschimbați) în câmpul file.
lcBoundary = "----gateway" + SYS(2015)
lcBody = "--" + lcBoundary + CRLF + ;
   'Content-Disposition: form-data; name="file"; filename="' + TABLE_NAME + '.dbf"' + CRLF + ;
   "Content-Type: application/octet-stream" + CRLF + CRLF + ;
   FILETOSTR(lcTable) + CRLF
IF !EMPTY(CODEPAGE)
   lcBody = lcBody + "--" + lcBoundary + CRLF + 'Content-Disposition: form-data; name="codepage"' + CRLF + CRLF + CODEPAGE + CRLF
ENDIF
lcBody = lcBody + "--" + lcBoundary + "--" + CRLF
ERASE (lcTable)
lcIncarcare = CallApi("${UPLOAD.method}", ${path(UPLOAD)}, CREATEBINARY(lcBody), "multipart/form-data; boundary=" + lcBoundary)
IF ISNULL(lcIncarcare)
   RETURN
ENDIF
${show('lcIncarcare', UPLOAD)}
lcBatchId = JsonText(lcIncarcare, "batch_id")

* Fișierul se încarcă în fundal: se întreabă din nou cât timp este „queued” (în așteptare) sau „staging”.
DO WHILE !ISNULL(lcIncarcare) AND INLIST(JsonText(lcIncarcare, "status"), "queued", "staging")
   = INKEY(1, "H")
   lcIncarcare = CallApi("${BATCH.method}", ${path(BATCH)}, .NULL., "")
ENDDO
IF ISNULL(lcIncarcare) OR !(JsonText(lcIncarcare, "status") == "staged")
   RETURN
ENDIF

lcPrevizualizare = CallApi("${PREVIEW.method}", ${path(PREVIEW)}, .NULL., "")
IF ISNULL(lcPrevizualizare)
   RETURN
ENDIF
${show('lcPrevizualizare', PREVIEW)}
lcNToCommit = JsonText(lcPrevizualizare, "n_to_commit")
lcRowsHash = JsonText(lcPrevizualizare, "rows_hash")

lcConfirmare = CallApi("${COMMIT.method}", ${path(COMMIT)}, CREATEBINARY(STRCONV(${commitBody()}, 9)), "application/json; charset=utf-8")
IF !ISNULL(lcConfirmare)
${show('lcConfirmare', COMMIT).replace(/^/gm, '   ')}
ENDIF
RETURN
${FUNCTIONS}`;
  return { filename: 'import.prg', howToRun: 'DO import.prg', code };
}
