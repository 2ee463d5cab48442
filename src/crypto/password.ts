import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_BYTES = 64;
const R = 8;
const P = 1;

/**
 * Hashes at once, at most: each takes 128·N·r bytes (128 MiB at OWASP's N) for about half a
 * second, so a burst of sign-ins queues here instead of taking the server's memory.
 */
const MAX_CONCURRENT = 2;
let running = 0;
const waiting: Array<() => void> = [];

async function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    // 128·N·r bytes of memory, above Node's 32 MiB default from N = 2^15.
    const options: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
    return await new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))));
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

/**
 * scrypt with OWASP's parameters (N = 2^17, r = 8, p = 1), asynchronous: a hash takes about
 * a second of one libuv thread, never the event loop. Stored as `scrypt$N$r$p$salt$hash`.
 */
export async function hashPassword(password: string, n: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, n, R, P);
  return ['scrypt', n, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Whether `password` matches `stored`, compared in constant time; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A hash no password matches, verified for an unknown e-mail so that it costs the same time. */
export function decoyHash(n: number): string {
  return ['scrypt', n, R, P, randomBytes(16).toString('base64'), randomBytes(KEY_BYTES).toString('base64')].join('$');
}

/** Passwords a user may choose: long enough to resist guessing, short enough to hash. */
export function passwordProblem(password: string): string | null {
  if (password.length < 12) return 'Parola trebuie să aibă cel puțin 12 caractere.';
  if (password.length > 256) return 'Parola poate avea cel mult 256 de caractere.';
  return null;
}
