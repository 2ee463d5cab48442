import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { createHashGate, type HashLane } from './hash-gate';

const KEY_BYTES = 64;
const R = 8;
const P = 1;

/**
 * The process's one gate for password hashes: two at once (each takes 128·N·r bytes, 128 MiB
 * at OWASP's N, for about half a second on these two cores), then four strangers' sign-ins
 * and two from known browsers waiting; past that a sign-in is refused at once (HashQueueFull),
 * so the longest wait is about three hashes, not the length of a flood.
 */
const gate = createHashGate({ running: 2, waiting: { untrusted: 4, trusted: 2 } });

async function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // 128·N·r bytes of memory, above Node's 32 MiB default from N = 2^15.
  const options: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))));
}

/**
 * scrypt with OWASP's parameters (N = 2^17, r = 8, p = 1), asynchronous: a hash takes about
 * a second of one libuv thread, never the event loop. Stored as `scrypt$N$r$p$salt$hash`.
 */
export async function hashPassword(password: string, n: number): Promise<string> {
  const salt = randomBytes(16);
  // An administrator sets a password (the CLI): it waits its turn, whatever the queue holds.
  const key = await gate.run('trusted', () => derive(password, salt, n, R, P), { bounded: false });
  return ['scrypt', n, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

/**
 * Whether `password` matches `stored`, compared in constant time; a malformed hash never
 * matches. Throws HashQueueFull when the lane's queue is full.
 */
export async function verifyPassword(password: string, stored: string, lane: HashLane): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await gate.run(lane, () => derive(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p)));
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
