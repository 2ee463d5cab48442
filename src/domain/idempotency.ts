import { createHash } from 'node:crypto';
import { itemCode, type CanonicalContent } from './canonical';

/** Keys sorted at every level, so the same content always serialises the same way. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Item order carries no meaning: the same operations in another order are the same service. */
function keyedContent(content: CanonicalContent) {
  const prestatii = [...content.prestatii].sort((a, b) => {
    const ka = `${itemCode(a)}|${a.denumire}`;
    const kb = `${itemCode(b)}|${b.denumire}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  return { ...content, prestatii };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The key: a hash over the account (NULL → 1) and the canonical content. */
export function idempotencyKey(accountId: number | null, content: CanonicalContent): string {
  return sha256(`v2|${accountId ?? 1}|${stableJson(keyedContent(content))}`);
}

/** The older form, from before account scoping (content only), kept for the dual lookup. */
export function legacyIdempotencyKey(content: CanonicalContent): string {
  return sha256(stableJson(keyedContent(content)));
}

/** Both forms at once, from one serialisation: the import derives 100,000 rows in one upload. */
export function idempotencyKeys(accountId: number | null, content: CanonicalContent): { key: string; legacyKey: string } {
  const stable = stableJson(keyedContent(content));
  return { key: sha256(`v2|${accountId ?? 1}|${stable}`), legacyKey: sha256(stable) };
}
