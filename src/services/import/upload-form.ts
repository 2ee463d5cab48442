import { hasUnstorableChar, replaceUnstorable } from '../../domain/text';
import type { FormPart } from '../../http/multipart';
import { isFormFile } from '../../http/multipart';
import { CHOSEN_CODE_PAGES, chosenCodePage } from '../../readers/code-pages';

/** What an upload's form holds, read: the file, the sheets chosen by name, a .dbf table's code page. */
export interface UploadedForm {
  filename: string | null;
  bytes: Buffer;
  sheets: string[];
  codePage: number | undefined;
}

/** Why a form cannot be an upload: the field at fault, a machine name, and the words for the user. */
export interface UploadFormProblem {
  field: string;
  type: string;
  message: string;
}

/** The longest sheet name a form may name (Excel allows 31; other writers more). */
const MAX_SHEET = 200;

/**
 * The one reading of an upload's form, for POST /v1/import and the dashboard's upload alike:
 * exactly one file, sheet names (`sheetField`: the API's `sheet`, the form's `foaie`; empty
 * names none), at most one code page from the list. The file name is kept storable and short.
 */
export function readUploadForm(parts: readonly FormPart[], sheetField: string): { ok: true; upload: UploadedForm } | { ok: false; problem: UploadFormProblem } {
  const fail = (field: string, type: string, message: string) => ({ ok: false as const, problem: { field, type, message } });
  const files = parts.filter((p) => p.name === 'file');
  if (files.length > 1) return fail('file', 'too_many_files', 'Se încarcă un singur fișier o dată.');
  const file = files[0];
  if (!isFormFile(file)) return fail('file', 'file_missing', 'Alegeți un fișier xlsx, csv sau dbf (câmpul file).');
  const sheets: string[] = [];
  for (const part of parts) {
    if (part.name !== sheetField) continue;
    if (isFormFile(part)) return fail(sheetField, 'sheet_invalid', 'Foaia se alege după nume (text), nu ca fișier.');
    const name = part.value.trim();
    if (name.length > MAX_SHEET) return fail(sheetField, 'sheet_invalid', `Numele foii are cel mult ${MAX_SHEET} de caractere.`);
    if (hasUnstorableChar(name)) return fail(sheetField, 'unstorable_char', 'Numele foii conține un caracter nepermis (NUL sau un surogat UTF-16 fără pereche).');
    // An empty name (Swagger UI's "Try it out", a form with the field left blank) names no sheet.
    if (name !== '') sheets.push(name);
  }
  const codePages = parts.filter((p) => p.name === 'codepage');
  const only = codePages[0];
  const codePage = only && !isFormFile(only) ? chosenCodePage(only.value) : undefined;
  if (codePages.length > 1 || (only && isFormFile(only)) || codePage === null) {
    return fail('codepage', 'codepage_invalid', `Pagina de cod este una dintre ${CHOSEN_CODE_PAGES.map((c) => c.codePage).join(', ')}, sau niciuna (cea din antetul tabelei).`);
  }
  return { ok: true, upload: { filename: replaceUnstorable(file.filename.slice(0, 255)) || null, bytes: file.bytes, sheets, codePage } };
}
