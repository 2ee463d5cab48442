import { BATCH, COMMIT, DRY_RUN, exampleJson, FILE_PLACEHOLDER, KEY_PLACEHOLDER, PREVIEW, SUBMIT, UPLOAD, type Operation } from '../operations';
import { jsonOf, pathParts } from './literals';
import type { LanguageExamples, Program } from './types';

// The shell examples: curl sends, jq reads (both in every Linux distribution and in CI images).

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** "/v1/import/$batch_id/preview?page_size=1": variables are the shell's of the same name. */
const url = (op: Operation) =>
  `"${pathParts(op.path)
    .map((p) => (typeof p === 'string' ? p : `$${p.variable}`))
    .join('')}"`;
const names = (op: Operation) => op.reads.join(' ');

/** The commit's JSON built by jq from the captured values (kept as JSON: a number stays a number). */
function commitBody(): string {
  const body = jsonOf(COMMIT)!;
  const vars = Object.values(body).map((v) => String(v).slice(1, -1));
  const fields = Object.entries(body).map(([k, v]) => `${k}: $${String(v).slice(1, -1)}`);
  return `jq -n ${vars.map((v) => `--argjson ${v} "$${v}"`).join(' ')} '{${fields.join(', ')}}'`;
}

const HEAD = (base: string, what: string) => `#!/usr/bin/env bash
# ${what} Necesită curl și jq.
set -euo pipefail
BASE=${base}
KEY=${KEY_PLACEHOLDER}

# call METODĂ CALE [opțiuni curl]: răspunsul JSON; la o eroare HTTP îl afișează și oprește scriptul.
call() {
  local method=$1 path=$2 answer
  shift 2
  if ! answer=$(curl -sS --fail-with-body -X "$method" -H "X-API-Key: $KEY" "$@" "$BASE$path"); then
    echo "Eroare: $answer" >&2
    exit 1
  fi
  printf '%s' "$answer"
}

# show RĂSPUNS CÂMP...: câmpurile cerute; o listă (erori) câte un element pe linie, fără cele nule.
show() {
  local answer=$1 name
  shift
  for name in "$@"; do
    jq -r --arg n "$name" '.[$n] | if type == "array" then .[] | "\\($n): \\(.field) - \\(.message)" elif . == null then empty else "\\($n): \\(.)" end' <<<"$answer"
  done
}
`;

const JSON_HEADER = `-H 'Content-Type: application/json; charset=utf-8'`;

export function curlExamples(base: string): LanguageExamples {
  const submission = `${HEAD(base, 'Prezentare prin API: dry run, apoi trimiterea.')}
PREZENTARE=${sq(exampleJson(DRY_RUN))}

verdict=$(call ${DRY_RUN.method} ${url(DRY_RUN)} ${JSON_HEADER} -d "$PREZENTARE")
show "$verdict" ${names(DRY_RUN)}
[ "$(jq -r .status_estimat <<<"$verdict")" = queued ] || exit 1

rezultat=$(call ${SUBMIT.method} ${url(SUBMIT)} ${JSON_HEADER} -d "$PREZENTARE")
show "$rezultat" ${names(SUBMIT)}
`;
  const upload = `${HEAD(base, 'Import de fișier: încărcare, previzualizare, confirmare.')}
FILE=${FILE_PLACEHOLDER}

incarcare=$(call ${UPLOAD.method} ${url(UPLOAD)} -F "file=@$FILE;type=application/octet-stream")
show "$incarcare" ${names(UPLOAD)}
batch_id=$(jq -r .batch_id <<<"$incarcare")

# Fișierul se încarcă în fundal: se întreabă din nou cât timp este „queued” (în așteptare) sau „staging”.
while [[ "$(jq -r .status <<<"$incarcare")" =~ ^(queued|staging)$ ]]; do
  sleep 1
  incarcare=$(call ${BATCH.method} ${url(BATCH)})
  show "$incarcare" ${names(BATCH)}
done
if [ "$(jq -r .status <<<"$incarcare")" != staged ]; then
  echo "Importul nu poate fi confirmat: $(jq -c '.error // .status' <<<"$incarcare")" >&2
  exit 1
fi

previzualizare=$(call ${PREVIEW.method} ${url(PREVIEW)})
show "$previzualizare" ${names(PREVIEW)}
n_to_commit=$(jq -c .n_to_commit <<<"$previzualizare")
rows_hash=$(jq -c .rows_hash <<<"$previzualizare")

confirmare=$(call ${COMMIT.method} ${url(COMMIT)} ${JSON_HEADER} -d "$(${commitBody()})")
show "$confirmare" ${names(COMMIT)}
`;
  return {
    language: 'curl',
    label: 'curl',
    run: true,
    submission: { filename: 'prezentare.sh', howToRun: 'bash prezentare.sh', code: submission },
    upload: { filename: 'import.sh', howToRun: 'bash import.sh', code: upload },
  };
}

/**
 * A CI job's step (GitHub Actions syntax; any runner with bash, curl and jq): the dry run of the
 * record the build produced, failing the build when the verdict is not `queued`.
 */
export function ciExample(base: string): Program {
  const code = `# Un pas al jobului de CI: eșuează când verdictul dry run nu este „queued”.
# Cheia stă în secretele proiectului (GATEWAY_API_KEY), niciodată în fișier.
- name: Verifică prezentarea la gateway (dry run)
  shell: bash
  env:
    GATEWAY_URL: ${base}
    GATEWAY_API_KEY: \${{ secrets.GATEWAY_API_KEY }}
  run: |
    verdict=$(curl -sS --fail-with-body -X ${DRY_RUN.method} "$GATEWAY_URL${DRY_RUN.path}" \\
      -H "X-API-Key: $GATEWAY_API_KEY" ${JSON_HEADER} \\
      -d ${sq(exampleJson(DRY_RUN))})
    echo "$verdict" | jq .
    test "$(echo "$verdict" | jq -r .status_estimat)" = queued
`;
  return { filename: '.github/workflows/…', howToRun: 'un pas al jobului', code };
}
