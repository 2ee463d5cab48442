import { OPERATIONS } from './clients/operations';

// What the OpenAPI document adds to each operation beyond its route's description: a stable
// operationId, a tag by resource, and the request example of the one description of the
// operations (src/clients/operations.ts) that the integration page and collection share.

export const TAGS = [
  { name: 'prezentari', description: 'Trimiterea prezentărilor, dry run, citire, ștergere, repunere în coadă' },
  { name: 'import', description: 'Importul de fișiere xlsx/csv: încărcare, mapare, previzualizare, confirmare' },
  { name: 'mapari', description: 'Mapările codurilor de operație la codurile registrului' },
  { name: 'reguli-text', description: 'Reguli care rezolvă o operație după textul denumirii' },
  { name: 'nomenclator', description: 'Codurile registrului' },
  { name: 'conturi', description: 'Credențialele durabile ale registrului' },
  { name: 'ping', description: 'Verificarea cheii și a mediului' },
  { name: 'audit', description: 'Exportul pentru audit' },
  { name: 'integrare', description: 'Colecția Postman' },
  { name: 'sistem', description: 'Sănătate, metrici, documentație' },
];

/** The resource an operation belongs to: /v1/<resource>/…, else `sistem`. */
export function operationTags(path: string): string[] {
  const resource = /^\/v1\/([\w-]+)/.exec(path)?.[1];
  return [resource && TAGS.some((t) => t.name === resource) ? resource : 'sistem'];
}

/** The description's operation of a method and an OpenAPI path (`{batch_id}` is the route's `{id}`). */
function describedOperation(method: string, path: string) {
  return OPERATIONS.find((op) => op.method.toLowerCase() === method && op.path.split('?')[0]!.replace('{batch_id}', '{id}') === path);
}

const camel = (words: string[]) => words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('');

/** The description's id where there is one (`dryRun`), else method and path: `getV1PrezentariById`. */
export function operationId(method: string, path: string): string {
  const described = describedOperation(method, path);
  if (described) return described.id;
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      return (param ? `by-${param[1]}` : segment).split(/[^A-Za-z0-9]+/).filter(Boolean);
    })
    .map((w) => w.toLowerCase());
  return camel([method, ...words]);
}

/** The description's account of an operation: what it is and which fields of the answer a client reads. */
export function describedText(method: string, path: string): string | undefined {
  const op = describedOperation(method, path);
  return op ? `${op.title}. Din răspuns, un client citește: ${op.reads.join(', ')}. Exemple în 7 limbaje: pagina Integrare (/integrare).` : undefined;
}

/** The JSON body example of the operation, when the description gives one without captured values. */
export function requestExample(method: string, path: string): Record<string, unknown> | undefined {
  const body = describedOperation(method, path)?.body;
  if (!body || !('json' in body)) return undefined;
  return Object.values(body.json).some((v) => typeof v === 'string' && /^\{\w+\}$/.test(v)) ? undefined : body.json;
}
