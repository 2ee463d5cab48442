import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with the master key's id in the ciphertext, so a new master key can be
 * introduced while the old one still decrypts what it wrote:
 *   v1.<keyId>.<iv>.<tag>.<ciphertext>   (base64url parts)
 */
export interface Keyring {
  encrypt(plain: string): string;
  decrypt(token: string): string;
  currentKeyId: string;
}

export class DecryptError extends Error {}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function createKeyring(currentBase64: string, oldBase64: string[] = []): Keyring {
  const current = Buffer.from(currentBase64, 'base64');
  if (current.length !== 32) throw new Error('master key must be 32 bytes');
  const keys = new Map<string, Buffer>();
  for (const k of oldBase64) keys.set(keyId(Buffer.from(k, 'base64')), Buffer.from(k, 'base64'));
  const currentId = keyId(current);
  keys.set(currentId, current);

  return {
    currentKeyId: currentId,
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(currentId));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
      return ['v1', currentId, ...parts].join('.');
    },
    decrypt(token) {
      const [version, id, iv, tag, body] = token.split('.');
      if (version !== 'v1' || !id || !iv || !tag || body === undefined) throw new DecryptError('malformed ciphertext');
      const key = keys.get(id);
      if (!key) throw new DecryptError(`unknown key id ${id}`);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(id));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new DecryptError('ciphertext does not authenticate');
      }
    },
  };
}

export function encryptJson(keyring: Keyring, value: unknown): string {
  return keyring.encrypt(JSON.stringify(value));
}

export function decryptJson<T = unknown>(keyring: Keyring, token: string): T {
  return JSON.parse(keyring.decrypt(token)) as T;
}
