import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createKeyring } from '../../src/crypto/envelope';
import { createHashGate, HashQueueFull } from '../../src/crypto/hash-gate';
import { createTagger } from '../../src/crypto/mac';
import { createDeviceCookies } from '../../src/web/login/device';
import { createFormTokens } from '../../src/web/login/form-token';
import { createSignInLimits } from '../../src/web/login/limits';

/** A hash the test finishes when it wants, and the order hashes started in. */
function controlledHashes() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const hash = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      finishers.set(name, () => resolve(name));
    });
  const finish = async (name: string) => {
    finishers.get(name)!();
    // Let the gate hand the place on.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { started, hash, finish };
}

describe('the password hash gate', () => {
  it('runs a bounded number at once, queues a few, refuses the rest at once with a Retry-After', async () => {
    const gate = createHashGate({ running: 2, waiting: { untrusted: 2, trusted: 1 } });
    const { started, hash, finish } = controlledHashes();
    const runs = ['a', 'b', 'c', 'd'].map((name) => gate.run('untrusted', hash(name)));
    await Promise.resolve();
    expect(started).toEqual(['a', 'b']);
    expect(gate.load()).toEqual({ running: 2, waiting: 2 });
    const refused = gate.run('untrusted', hash('e'));
    await expect(refused).rejects.toBeInstanceOf(HashQueueFull);
    await refused.catch((error: HashQueueFull) => expect(error.retryAfterS).toBeGreaterThanOrEqual(1));
    for (const name of ['a', 'b', 'c', 'd']) await finish(name);
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c', 'd']);
    expect(gate.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('serves a trusted sign-in before every waiting stranger, in a lane strangers cannot fill', async () => {
    const gate = createHashGate({ running: 1, waiting: { untrusted: 3, trusted: 1 } });
    const { started, hash, finish } = controlledHashes();
    const strangers = ['s1', 's2', 's3', 's4'].map((name) => gate.run('untrusted', hash(name)));
    await expect(gate.run('untrusted', hash('s5'))).rejects.toBeInstanceOf(HashQueueFull);
    const owner = gate.run('trusted', hash('owner'));
    await finish('s1');
    expect(started).toEqual(['s1', 'owner']);
    await finish('owner');
    expect(await owner).toBe('owner');
    for (const name of ['s2', 's3', 's4']) await finish(name);
    await Promise.all(strangers);
  });

  it('an unbounded run (a password an administrator sets) waits instead of being refused', async () => {
    const gate = createHashGate({ running: 1, waiting: { untrusted: 0, trusted: 0 } });
    const { hash, finish } = controlledHashes();
    const first = gate.run('untrusted', hash('first'));
    const admin = gate.run('trusted', hash('admin'), { bounded: false });
    await finish('first');
    await finish('admin');
    expect(await Promise.all([first, admin])).toEqual(['first', 'admin']);
  });

  it('a hash that fails still frees its place', async () => {
    const gate = createHashGate({ running: 1, waiting: { untrusted: 1, trusted: 1 } });
    await expect(gate.run('untrusted', () => Promise.reject(new Error('scrypt')))).rejects.toThrow('scrypt');
    expect(gate.load()).toEqual({ running: 0, waiting: 0 });
  });
});

describe('signed tokens of the sign-in form', () => {
  const keyring = createKeyring(randomBytes(32).toString('base64'));

  it('purposes get different keys; a tag binds each part where it is', () => {
    expect(keyring.deriveKey('a').equals(keyring.deriveKey('b'))).toBe(false);
    expect(keyring.deriveKey('a').equals(keyring.deriveKey('a'))).toBe(true);
    const tagger = createTagger(keyring.deriveKey('a'));
    expect(tagger.verify(tagger.tag('x.y', 'z'), 'x.y', 'z')).toBe(true);
    expect(tagger.verify(tagger.tag('x.y', 'z'), 'x', 'y.z')).toBe(false);
  });

  it('a form token verifies until it expires; a made-up or altered one never', () => {
    let now = new Date('2025-06-01T08:00:00Z');
    const tokens = createFormTokens(keyring.deriveKey('login-form-token'), () => now);
    const token = tokens.issue();
    expect(tokens.valid(token)).toBe(true);
    const [nonce, expires, tag] = token.split('.');
    expect(tokens.valid(`${nonce}.${Number(expires) + 3600}.${tag}`)).toBe(false);
    expect(tokens.valid(`${randomBytes(18).toString('base64url')}.${expires}.${tag}`)).toBe(false);
    expect(tokens.valid('atacator')).toBe(false);
    expect(tokens.valid(`${nonce}.${expires}.${tag}.x`)).toBe(false);
    // Another server's key (another master key) does not make a valid token here.
    const other = createFormTokens(createKeyring(randomBytes(32).toString('base64')).deriveKey('login-form-token'), () => now);
    expect(tokens.valid(other.issue())).toBe(false);
    now = new Date(now.getTime() + 2 * 60 * 60 * 1000 + 1000);
    expect(tokens.valid(token)).toBe(false);
  });

  it('a device cookie names its e-mail only to the server, keeps five people, newest first', () => {
    const devices = createDeviceCookies(keyring.deriveKey('device-cookie'));
    let cookie = devices.afterSignIn(undefined, 'ana@service.ro');
    expect(cookie).not.toContain('ana');
    expect(devices.deviceFor(cookie, 'ana@service.ro')).toMatch(/^[\w-]{22}$/);
    expect(devices.deviceFor(cookie, 'ion@service.ro')).toBeNull();
    for (const name of ['b', 'c', 'd', 'e', 'f']) cookie = devices.afterSignIn(cookie, `${name}@service.ro`);
    expect(cookie.split('~')).toHaveLength(5);
    expect(devices.deviceFor(cookie, 'ana@service.ro')).toBeNull();
    const before = devices.deviceFor(cookie, 'c@service.ro');
    cookie = devices.afterSignIn(cookie, 'c@service.ro');
    expect(cookie.split('~')).toHaveLength(5);
    // A fresh nonce at every sign-in: the old one is forgotten.
    expect(devices.deviceFor(cookie, 'c@service.ro')).not.toBe(before);
    // A forged entry (a random tag) matches nobody.
    expect(devices.deviceFor(`${randomBytes(16).toString('base64url')}.${randomBytes(16).toString('base64url')}`, 'ana@service.ro')).toBeNull();
  });
});

describe('sign-in limits', () => {
  const config = { GATEWAY_AUTH_FAILURES_PER_MIN: 100, GATEWAY_LOGIN_FAILURES_PER_EMAIL: 3 };

  it('strangers lock out an e-mail; its device cookie is held by its own count instead', () => {
    const limits = createSignInLimits(config);
    const stranger = { address: '203.0.113.9', email: 'ana@service.ro', device: null };
    for (let i = 0; i < 3; i++) expect(limits.admit(stranger).admitted).toBe(true);
    expect(limits.admit(stranger)).toMatchObject({ admitted: false });
    const owner = { address: '198.51.100.1', email: 'ana@service.ro', device: 'nonce-of-ana' };
    expect(limits.admit(owner)).toMatchObject({ admitted: true, lane: 'trusted' });
    expect(limits.admit(owner)).toMatchObject({ admitted: true, lane: 'trusted' });
    expect(limits.admit(owner)).toMatchObject({ admitted: true, lane: 'trusted' });
    // A fourth failure with the cookie: it is locked out too, and falls back on the e-mail's lock-out.
    expect(limits.admit(owner)).toMatchObject({ admitted: false });
  });

  it('a released attempt (a success) does not count', () => {
    const limits = createSignInLimits(config);
    const attempt = { address: '203.0.113.9', email: 'ion@service.ro', device: null };
    for (let i = 0; i < 10; i++) {
      const admission = limits.admit(attempt);
      expect(admission.admitted).toBe(true);
      if (admission.admitted) admission.release();
    }
  });
});
