import { BATCH, COMMIT, DRY_RUN, FILE_PLACEHOLDER, KEY_PLACEHOLDER, PREVIEW, SUBMIT, UPLOAD, type Operation } from '../operations';
import { block, jsonOf, literal, pathParts, quoted, type Syntax } from './literals';
import type { LanguageExamples } from './types';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const camel = (name: string) => name.replace(/_(\w)/g, (_m, c: string) => c.toUpperCase());

const js: Syntax = {
  string: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  object: (entries, indent) =>
    block(
      '{',
      entries.map(([k, v]) => `${IDENTIFIER.test(k) ? k : quoted(k)}: ${v}`),
      '}',
      indent,
      '  ',
    ),
  array: (items, indent) => block('[', items, ']', indent, '  '),
  true: 'true',
  false: 'false',
  null: 'null',
  variable: camel,
  step: '  ',
};

const path = (op: Operation) => {
  const parts = pathParts(op.path);
  return parts.some((p) => typeof p !== 'string') ? `\`${parts.map((p) => (typeof p === 'string' ? p : `\${${camel(p.variable)}}`)).join('')}\`` : js.string(op.path);
};
const names = (op: Operation) => op.reads.map(js.string).join(', ');

const HEAD = (base: string, what: string, imports = '') => `// ${what} Node.js 18+ (fetch inclus), fără pachete.
${imports}const BASE = ${js.string(base)};
const KEY = ${js.string(KEY_PLACEHOLDER)};

/** Trimite o cerere și întoarce răspunsul JSON; o eroare HTTP devine o excepție cu răspunsul. */
async function call(method, path, body, headers = {}) {
  const response = await fetch(BASE + path, { method, body, headers: { 'X-API-Key': KEY, ...headers } });
  const text = await response.text();
  if (!response.ok) throw new Error(\`HTTP \${response.status}: \${text}\`);
  return JSON.parse(text);
}

const sendJson = (method, path, payload) => call(method, path, JSON.stringify(payload), { 'Content-Type': 'application/json; charset=utf-8' });

/** Afișează câmpurile cerute; o listă (erori) câte un element pe linie, fără cele nule. */
function show(answer, ...names) {
  for (const name of names) {
    const value = answer[name];
    if (Array.isArray(value)) for (const item of value) console.log(\`\${name}: \${item.field} - \${item.message}\`);
    else if (value !== null && value !== undefined) console.log(\`\${name}: \${value}\`);
  }
}
`;

const FOOT = `
main().catch((error) => {
  console.error(error.message);
  process.exitCode = 1;
});
`;

export function javascriptExamples(base: string): LanguageExamples {
  const submission = `${HEAD(base, 'Prezentare prin API: dry run, apoi trimiterea.')}
const prezentare = ${literal(jsonOf(DRY_RUN), js)};

async function main() {
  const verdict = await sendJson(${js.string(DRY_RUN.method)}, ${path(DRY_RUN)}, prezentare);
  show(verdict, ${names(DRY_RUN)});
  if (verdict.status_estimat !== 'queued') {
    process.exitCode = 1;
    return;
  }
  const rezultat = await sendJson(${js.string(SUBMIT.method)}, ${path(SUBMIT)}, prezentare);
  show(rezultat, ${names(SUBMIT)});
}
${FOOT}`;
  const upload = `${HEAD(base, 'Import de fișier: încărcare, previzualizare, confirmare.', "import { readFile } from 'node:fs/promises';\nimport { basename } from 'node:path';\n\n")}
const FILE = ${js.string(FILE_PLACEHOLDER)};

async function main() {
  const form = new FormData();
  form.append('file', new Blob([await readFile(FILE)], { type: 'application/octet-stream' }), basename(FILE));
  let incarcare = await call(${js.string(UPLOAD.method)}, ${path(UPLOAD)}, form);
  show(incarcare, ${names(UPLOAD)});
  const batchId = incarcare.batch_id;

  // Fișierul se încarcă în fundal: se întreabă din nou cât timp este „queued” (în așteptare) sau „staging”.
  while (incarcare.status === 'queued' || incarcare.status === 'staging') {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    incarcare = await call(${js.string(BATCH.method)}, ${path(BATCH)});
    show(incarcare, ${names(BATCH)});
  }
  if (incarcare.status !== 'staged') throw new Error(\`Importul nu poate fi confirmat: \${JSON.stringify(incarcare.error ?? incarcare.status)}\`);

  const previzualizare = await call(${js.string(PREVIEW.method)}, ${path(PREVIEW)});
  show(previzualizare, ${names(PREVIEW)});
  const { n_to_commit: nToCommit, rows_hash: rowsHash } = previzualizare;

  const confirmare = await sendJson(${js.string(COMMIT.method)}, ${path(COMMIT)}, ${literal(jsonOf(COMMIT), js, '  ')});
  show(confirmare, ${names(COMMIT)});
}
${FOOT}`;
  return {
    language: 'javascript',
    label: 'JavaScript',
    run: true,
    submission: { filename: 'prezentare.mjs', howToRun: 'node prezentare.mjs', code: submission },
    upload: { filename: 'import.mjs', howToRun: 'node import.mjs', code: upload },
  };
}
