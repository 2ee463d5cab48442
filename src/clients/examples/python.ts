import { BATCH, DRY_RUN, FILE_PLACEHOLDER, KEY_PLACEHOLDER, PREVIEW, SUBMIT, UPLOAD, COMMIT, type Operation } from '../operations';
import { block, jsonOf, literal, pathParts, quoted, type Syntax } from './literals';
import type { LanguageExamples } from './types';

const python: Syntax = {
  string: quoted,
  object: (entries, indent) =>
    block(
      '{',
      entries.map(([k, v]) => `${quoted(k)}: ${v}`),
      '}',
      indent,
    ),
  array: (items, indent) => block('[', items, ']', indent),
  true: 'True',
  false: 'False',
  null: 'None',
  variable: (name) => name,
};

/** An f-string of the path: its variables are the Python variables of the same name. */
const path = (op: Operation) => {
  const parts = pathParts(op.path);
  return parts.some((p) => typeof p !== 'string') ? `f${quoted(parts.map((p) => (typeof p === 'string' ? p : `{${p.variable}}`)).join(''))}` : quoted(op.path);
};
const names = (op: Operation) => op.reads.map(quoted).join(', ');

const HEAD = (base: string, what: string) => `#!/usr/bin/env python3
# ${what} Doar biblioteca standard (Python 3.8+).
import json
import sys
import urllib.error
import urllib.request

BASE = ${quoted(base)}
KEY = ${quoted(KEY_PLACEHOLDER)}


def call(method, path, body=None, headers=None):
    """Trimite o cerere și întoarce răspunsul JSON; la o eroare HTTP îl afișează și oprește programul."""
    request = urllib.request.Request(BASE + path, data=body, method=method, headers={"X-API-Key": KEY, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as error:
        sys.exit(f"HTTP {error.code}: {error.read().decode('utf-8')}")


def send_json(method, path, payload):
    return call(method, path, json.dumps(payload).encode("utf-8"), {"Content-Type": "application/json; charset=utf-8"})


def show(answer, *names):
    """Afișează câmpurile cerute; o listă (erori) câte un element pe linie, fără cele nule."""
    for name in names:
        value = answer.get(name)
        if isinstance(value, list):
            for item in value:
                print(f"{name}: {item['field']} - {item['message']}")
        elif value is not None:
            print(f"{name}: {value}")
`;

export function pythonExamples(base: string): LanguageExamples {
  const submission = `${HEAD(base, 'Prezentare prin API: dry run, apoi trimiterea.')}

prezentare = ${literal(jsonOf(DRY_RUN), python)}

verdict = send_json(${quoted(DRY_RUN.method)}, ${path(DRY_RUN)}, prezentare)
show(verdict, ${names(DRY_RUN)})
if verdict["status_estimat"] != "queued":
    sys.exit(1)

rezultat = send_json(${quoted(SUBMIT.method)}, ${path(SUBMIT)}, prezentare)
show(rezultat, ${names(SUBMIT)})
`;
  const upload = `${HEAD(base, 'Import de fișier: încărcare, previzualizare, confirmare.')}
import os
import time
import uuid

FILE = ${quoted(FILE_PLACEHOLDER)}

# multipart/form-data scris de mână (biblioteca standard nu are unul), cu fișierul în câmpul file.
boundary = uuid.uuid4().hex
with open(FILE, "rb") as f:
    content = f.read()
body = (
    f'--{boundary}\\r\\nContent-Disposition: form-data; name="file"; filename="{os.path.basename(FILE)}"\\r\\n'
    "Content-Type: application/octet-stream\\r\\n\\r\\n"
).encode("utf-8") + content + f"\\r\\n--{boundary}--\\r\\n".encode("utf-8")
incarcare = call(${quoted(UPLOAD.method)}, ${path(UPLOAD)}, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
show(incarcare, ${names(UPLOAD)})
batch_id = incarcare["batch_id"]

# Fișierul se încarcă în fundal: se întreabă din nou cât timp este „queued” (în așteptare) sau „staging”.
while incarcare["status"] in ("queued", "staging"):
    time.sleep(1)
    incarcare = call(${quoted(BATCH.method)}, ${path(BATCH)})
    show(incarcare, ${names(BATCH)})
if incarcare["status"] != "staged":
    sys.exit(f"Importul nu poate fi confirmat: {incarcare.get('error') or incarcare['status']}")

previzualizare = call(${quoted(PREVIEW.method)}, ${path(PREVIEW)})
show(previzualizare, ${names(PREVIEW)})
n_to_commit = previzualizare["n_to_commit"]
rows_hash = previzualizare["rows_hash"]

confirmare = send_json(${quoted(COMMIT.method)}, ${path(COMMIT)}, ${literal(jsonOf(COMMIT), python)})
show(confirmare, ${names(COMMIT)})
`;
  return {
    language: 'python',
    label: 'Python',
    run: true,
    submission: { filename: 'prezentare.py', howToRun: 'python3 prezentare.py', code: submission },
    upload: { filename: 'import.py', howToRun: 'python3 import.py', code: upload },
  };
}
