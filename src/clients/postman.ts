import { DRY_RUN, KEY_PLACEHOLDER, type Operation, PING, SUBMIT } from './operations';

// The Postman Collection (format v2.1.0) of the JSON channel, generated from the same description
// as the page's examples: ping, dry run, submission, each with its example body and a test of
// its answer that Postman and newman run.

export const COLLECTION_SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';

/** What each route's test checks of the answer (JavaScript that Postman's sandbox runs). */
const TESTS: Record<string, string[]> = {
  ping: [
    "pm.test('cheia este acceptată (200)', () => pm.response.to.have.status(200));",
    "pm.test('răspunsul numește contul cheii', () => pm.expect(pm.response.json().account_id).to.be.a('number'));",
  ],
  dryRun: [
    "pm.test('dry run: 200', () => pm.response.to.have.status(200));",
    'const verdict = pm.response.json();',
    "pm.test('verdictul este queued', () => pm.expect(verdict.status_estimat, verdict.motiv).to.eql('queued'));",
  ],
  submit: [
    "pm.test('trimiterea: 200', () => pm.response.to.have.status(200));",
    'const rezultat = pm.response.json();',
    "pm.test('are submission_id', () => pm.expect(rezultat.submission_id).to.be.a('number'));",
    "pm.test('este în coadă', () => pm.expect(rezultat.status, rezultat.motiv).to.eql('queued'));",
  ],
};

function item(op: Operation) {
  const segments = op.path.split('/').filter(Boolean);
  const json = op.body && 'json' in op.body ? op.body.json : undefined;
  return {
    name: op.title,
    request: {
      method: op.method,
      header: json ? [{ key: 'Content-Type', value: 'application/json; charset=utf-8' }] : [],
      url: { raw: `{{baseUrl}}${op.path}`, host: ['{{baseUrl}}'], path: segments },
      ...(json ? { body: { mode: 'raw', raw: JSON.stringify(json, null, 2), options: { raw: { language: 'json' } } } } : {}),
    },
    event: [{ listen: 'test', script: { type: 'text/javascript', exec: TESTS[op.id] ?? [] } }],
  };
}

/** The collection for the gateway at `base`; the key is a placeholder the user replaces in the apiKey variable. */
export function postmanCollection(base: string) {
  return {
    info: {
      name: 'Gateway prezentări',
      description: 'Verificarea cheii, dry run și trimiterea unei prezentări. Puneți cheia API în variabila apiKey (și adresa în baseUrl, dacă diferă).',
      schema: COLLECTION_SCHEMA,
    },
    auth: {
      type: 'apikey',
      apikey: [
        { key: 'key', value: 'X-API-Key', type: 'string' },
        { key: 'value', value: '{{apiKey}}', type: 'string' },
        { key: 'in', value: 'header', type: 'string' },
      ],
    },
    variable: [
      { key: 'baseUrl', value: base, type: 'string' },
      { key: 'apiKey', value: KEY_PLACEHOLDER, type: 'string' },
    ],
    item: [PING, DRY_RUN, SUBMIT].map(item),
  };
}
