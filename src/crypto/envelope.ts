import { createCipheriv, createDecipheriv, createHash, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with the master key's id in the ciphertext, so a new master key can be
 * introduced while the old one still decrypts what it wrote:
 *   v1.<keyId>.<iv>.<tag>.<ciphertext>   (base64url parts)
 */
export interface Keyring {
  encrypt(plain: string): string;
  decrypt(token: string): string;
  /** The same envelope around bytes (a compressed block of import rows). */
  encryptBytes(plain: Uint8Array): string;
  decryptBytes(token: string): Buffer;
  /**
   * A 32-byte key for one purpose (signing a cookie), derived from the current master key
   * with HKDF-SHA256: a leak of it reveals neither the master key nor another purpose's key.
   * What it signed stops verifying when the master key changes.
   */
  deriveKey(purpose: string): Buffer;
  currentKeyId: string;
  /** Whether this keyring holds the key of that id (current or old). */
  knows(keyId: string): boolean;
}

export class DecryptError extends Error {}

/** The id of the key a ciphertext of this envelope is under; undefined for anything else. */
export function envelopeKeyId(token: string): string | undefined {
  return /^v1\.([0-9a-f]{8})\./.exec(token)?.[1];
}

function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * 12-byte GCM IVs cut from one large random buffer: a `randomBytes(12)` per row cost more
 * than the encryption itself. Each slice is handed out once and a used-up buffer is replaced
 * by a fresh one, never refilled in place, so no IV repeats (they stay uniformly random).
 */
const IV_BYTES = 12;
const IVS_PER_POOL = 4096;
let ivPool = Buffer.alloc(0);
let ivOffset = 0;

function nextIv(): Buffer {
  if (ivOffset + IV_BYTES > ivPool.length) {
    ivPool = randomBytes(IV_BYTES * IVS_PER_POOL);
    ivOffset = 0;
  }
  const iv = ivPool.subarray(ivOffset, ivOffset + IV_BYTES);
  ivOffset += IV_BYTES;
  return iv;
}

export function createKeyring(currentBase64: string, oldBase64: string[] = []): Keyring {
  const current = Buffer.from(currentBase64, 'base64');
  if (current.length !== 32) throw new Error('master key must be 32 bytes');
  const keys = new Map<string, Buffer>();
  for (const k of oldBase64) keys.set(keyId(Buffer.from(k, 'base64')), Buffer.from(k, 'base64'));
  const currentId = keyId(current);
  keys.set(currentId, current);
  // Built once rather than per row: the key object, and the AAD (the key id) with its encoded prefix.
  const currentKey = createSecretKey(current);
  const aad = Buffer.from(currentId);
  const prefix = `v1.${currentId}.`;

  function encryptBytes(plain: Uint8Array | string): string {
    const iv = nextIv();
    const cipher = createCipheriv('aes-256-gcm', currentKey, iv);
    cipher.setAAD(aad);
    const body = typeof plain === 'string' ? cipher.update(plain, 'utf8') : cipher.update(plain);
    // GCM is a stream mode: final() only computes the tag and returns no bytes.
    const rest = cipher.final();
    const ct = rest.length === 0 ? body : Buffer.concat([body, rest]);
    return `${prefix}${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${ct.toString('base64url')}`;
  }

  function decryptBytes(token: string): Buffer {
    const [version, id, iv, tag, body] = token.split('.');
    if (version !== 'v1' || !id || !iv || !tag || body === undefined) throw new DecryptError('malformed ciphertext');
    const key = keys.get(id);
    if (!key) throw new DecryptError(`unknown key id ${id}`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(id));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
    } catch {
      throw new DecryptError('ciphertext does not authenticate');
    }
  }

  return {
    currentKeyId: currentId,
    knows: (id) => keys.has(id),
    encrypt: encryptBytes,
    decrypt: (token) => decryptBytes(token).toString('utf8'),
    encryptBytes,
    decryptBytes,
    deriveKey: (purpose) => Buffer.from(hkdfSync('sha256', current, Buffer.alloc(0), `service-gateway/${purpose}`, 32)),
  };
}

export function encryptJson(keyring: Keyring, value: unknown): string {
  return keyring.encrypt(JSON.stringify(value));
}

export function decryptJson<T = unknown>(keyring: Keyring, token: string): T {
  return JSON.parse(keyring.decrypt(token)) as T;
}
