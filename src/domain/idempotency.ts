import { createHash, hash } from 'node:crypto';
import { DEFAULT_ACCOUNT_ID } from './accounts';
import type { CanonicalContent, CanonicalItem } from './canonical';

/**
 * Keys sorted at every level, so the same content always serialises the same way. The
 * reference form of the serialisation: `contentJson` writes the same bytes faster.
 */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

// The fields of CanonicalContent and CanonicalItem, in the sorted order stableJson writes them.
const CONTENT_FIELDS = ['b64Image', 'dataPrestatie', 'nrInm', 'odometruFinal', 'odometruInitial', 'prestatii', 'vin'] as const;
const ITEM_FIELDS = ['cod_op_service', 'cod_prestatie', 'denumire'] as const;

/** True when every own property of `value` is one of `fields` (anything else takes the generic path). */
function onlyFields(value: object, fields: readonly string[]): boolean {
  for (const k in value) if (!fields.includes(k)) return false;
  return true;
}

/** `{"k":v,...}` over `fields` (already sorted), skipping undefined values as stableJson does. */
function fieldsJson(value: Record<string, unknown>, fields: readonly string[], nested: (k: string, v: unknown) => string): string {
  let out = '{';
  for (const k of fields) {
    const v = value[k];
    if (v === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}"${k}":${nested(k, v)}`;
  }
  return `${out}}`;
}

const itemJson = (item: CanonicalItem): string =>
  onlyFields(item, ITEM_FIELDS) ? fieldsJson(item as unknown as Record<string, unknown>, ITEM_FIELDS, (_, v) => JSON.stringify(v)) : stableJson(item);

/**
 * Item order carries no meaning: the same operations in another order are the same service.
 * Sorted by `code|name`, as the keys were always computed (the sort is stable).
 */
function sortedItems(items: readonly CanonicalItem[]): CanonicalItem[] {
  if (items.length < 2) return [...items];
  return items
    .map((item) => ({ item, by: `${item.cod_prestatie ?? item.cod_op_service ?? ''}|${item.denumire}` }))
    .sort((a, b) => (a.by < b.by ? -1 : a.by > b.by ? 1 : 0))
    .map((e) => e.item);
}

/**
 * The one serialisation the keys hash: stableJson of the content with its items sorted,
 * written field by field (the generic walk allocated entry arrays per object and per row).
 */
function contentJson(content: CanonicalContent): string {
  const keyed = { ...content, prestatii: sortedItems(content.prestatii) };
  if (!onlyFields(content, CONTENT_FIELDS) || !Array.isArray(content.prestatii)) return stableJson(keyed);
  return fieldsJson(keyed as unknown as Record<string, unknown>, CONTENT_FIELDS, (k, v) =>
    k === 'prestatii' ? `[${(v as CanonicalItem[]).map(itemJson).join(',')}]` : typeof v === 'object' ? stableJson(v) : JSON.stringify(v),
  );
}

const sha256 = (text: string) => hash('sha256', text, 'hex');

/**
 * The key formula, once: the current key hashes the account (NULL → DEFAULT_ACCOUNT_ID, the
 * account the schema's scope_account_id gives such a row) with the content; the older form,
 * from before account scoping, hashes the content only.
 */
const scopedKey = (accountId: number | null, json: string) => sha256(`v2|${accountId ?? DEFAULT_ACCOUNT_ID}|${json}`);
const unscopedKey = (json: string) => sha256(json);

/** The key: a hash over the account (NULL → 1) and the canonical content. */
export function idempotencyKey(accountId: number | null, content: CanonicalContent): string {
  return scopedKey(accountId, contentJson(content));
}

/** The older form, from before account scoping (content only), kept for the dual lookup. */
export function legacyIdempotencyKey(content: CanonicalContent): string {
  return unscopedKey(contentJson(content));
}

/** Serialisations past this are hashed from their bytes, encoded once for both keys. */
const LARGE_JSON = 64 * 1024;

/** Both forms at once, from one serialisation: the import derives 100,000 rows in one upload. */
export function idempotencyKeys(accountId: number | null, content: CanonicalContent): { key: string; legacyKey: string } {
  const json = contentJson(content);
  if (json.length <= LARGE_JSON) return { key: scopedKey(accountId, json), legacyKey: unscopedKey(json) };
  // A photo's serialisation: hashing the text encodes it each time (about 50 ms for 14 MB).
  const bytes = Buffer.from(json);
  const key = createHash('sha256')
    .update(`v2|${accountId ?? DEFAULT_ACCOUNT_ID}|`)
    .update(bytes)
    .digest('hex');
  return { key, legacyKey: hash('sha256', bytes, 'hex') };
}
