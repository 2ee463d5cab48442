import { hash, randomBytes } from 'node:crypto';

// One-shot hashing: no Hash object per call (every API request hashes its key).
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}

const KEY_PREFIX = 'gw_';

/** A new API key: shown once, stored only as its SHA-256. */
export function generateApiKey(): { plain: string; hash: string; prefix: string } {
  const plain = KEY_PREFIX + randomBytes(24).toString('base64url');
  return { plain, hash: sha256Hex(plain), prefix: plain.slice(0, KEY_PREFIX.length + 6) };
}
