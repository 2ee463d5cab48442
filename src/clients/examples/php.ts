import { BATCH, COMMIT, DRY_RUN, FILE_PLACEHOLDER, KEY_PLACEHOLDER, PREVIEW, SUBMIT, UPLOAD, type Operation } from '../operations';
import { block, jsonOf, literal, pathParts, type Syntax } from './literals';
import type { LanguageExamples } from './types';

const str = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const php: Syntax = {
  string: str,
  object: (entries, indent) =>
    block(
      '[',
      entries.map(([k, v]) => `${str(k)} => ${v}`),
      ']',
      indent,
    ),
  array: (items, indent) => block('[', items, ']', indent),
  true: 'true',
  false: 'false',
  null: 'null',
  variable: (name) => `$${name}`,
};

/** A path with variables as a double-quoted string: "/v1/import/{$batch_id}/preview". */
const path = (op: Operation) => {
  const parts = pathParts(op.path);
  return parts.some((p) => typeof p !== 'string') ? `"${parts.map((p) => (typeof p === 'string' ? p : `{$${p.variable}}`)).join('')}"` : str(op.path);
};
const names = (op: Operation) => op.reads.map(str).join(', ');

const HEAD = (base: string, what: string) => `<?php
// ${what} PHP 7.4+ cu extensia curl.
const BASE = ${str(base)};
const KEY = ${str(KEY_PLACEHOLDER)};

/** Trimite o cerere și întoarce răspunsul JSON; la o eroare HTTP îl afișează și oprește programul. */
function call(string $method, string $path, $body = null, array $headers = []): array
{
    $curl = curl_init(BASE . $path);
    curl_setopt_array($curl, [
        CURLOPT_CUSTOMREQUEST => $method,
        CURLOPT_RETURNTRANSFER => true,
        CURLOPT_TIMEOUT => 120,
        CURLOPT_HTTPHEADER => array_merge(['X-API-Key: ' . KEY], $headers),
    ]);
    if ($body !== null) {
        curl_setopt($curl, CURLOPT_POSTFIELDS, $body);
    }
    $answer = curl_exec($curl);
    if ($answer === false) {
        fwrite(STDERR, curl_error($curl) . PHP_EOL);
        exit(1);
    }
    $status = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
    curl_close($curl);
    if ($status >= 400) {
        fwrite(STDERR, "HTTP $status: $answer" . PHP_EOL);
        exit(1);
    }
    return json_decode($answer, true);
}

function send_json(string $method, string $path, array $payload): array
{
    return call($method, $path, json_encode($payload, JSON_UNESCAPED_UNICODE), ['Content-Type: application/json; charset=utf-8']);
}

/** Afișează câmpurile cerute; o listă (erori) câte un element pe linie, fără cele nule. */
function show(array $answer, string ...$names): void
{
    foreach ($names as $name) {
        $value = $answer[$name] ?? null;
        if (is_array($value)) {
            foreach ($value as $item) {
                echo "$name: {$item['field']} - {$item['message']}" . PHP_EOL;
            }
        } elseif ($value !== null) {
            echo "$name: $value" . PHP_EOL;
        }
    }
}
`;

export function phpExamples(base: string): LanguageExamples {
  const submission = `${HEAD(base, 'Prezentare prin API: dry run, apoi trimiterea.')}
$prezentare = ${literal(jsonOf(DRY_RUN), php)};

$verdict = send_json(${str(DRY_RUN.method)}, ${path(DRY_RUN)}, $prezentare);
show($verdict, ${names(DRY_RUN)});
if ($verdict['status_estimat'] !== 'queued') {
    exit(1);
}

$rezultat = send_json(${str(SUBMIT.method)}, ${path(SUBMIT)}, $prezentare);
show($rezultat, ${names(SUBMIT)});
`;
  const upload = `${HEAD(base, 'Import de fișier: încărcare, previzualizare, confirmare.')}
const FILE = ${str(FILE_PLACEHOLDER)};

$incarcare = call(${str(UPLOAD.method)}, ${path(UPLOAD)}, ['file' => new CURLFile(FILE, 'application/octet-stream', basename(FILE))]);
show($incarcare, ${names(UPLOAD)});
$batch_id = $incarcare['batch_id'];

// Fișierul se încarcă în fundal: se întreabă din nou cât timp este „queued” (în așteptare) sau „staging”.
while (in_array($incarcare['status'], ['queued', 'staging'], true)) {
    sleep(1);
    $incarcare = call(${str(BATCH.method)}, ${path(BATCH)});
    show($incarcare, ${names(BATCH)});
}
if ($incarcare['status'] !== 'staged') {
    fwrite(STDERR, 'Importul nu poate fi confirmat: ' . json_encode($incarcare['error'] ?? $incarcare['status'], JSON_UNESCAPED_UNICODE) . PHP_EOL);
    exit(1);
}

$previzualizare = call(${str(PREVIEW.method)}, ${path(PREVIEW)});
show($previzualizare, ${names(PREVIEW)});
$n_to_commit = $previzualizare['n_to_commit'];
$rows_hash = $previzualizare['rows_hash'];

$confirmare = send_json(${str(COMMIT.method)}, ${path(COMMIT)}, ${literal(jsonOf(COMMIT), php)});
show($confirmare, ${names(COMMIT)});
`;
  return {
    language: 'php',
    label: 'PHP',
    run: true,
    submission: { filename: 'prezentare.php', howToRun: 'php prezentare.php', code: submission },
    upload: { filename: 'import.php', howToRun: 'php import.php', code: upload },
  };
}
