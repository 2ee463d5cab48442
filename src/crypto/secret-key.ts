import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config';

export type SecretKeyConfig = Pick<Config, 'GATEWAY_SECRET_KEY' | 'DATABASE_URL' | 'GATEWAY_DATA_DIR'>;

export function secretKeyPath(config: Pick<Config, 'GATEWAY_DATA_DIR'>): string {
  return join(config.GATEWAY_DATA_DIR, 'secret.key');
}

/** GATEWAY_SECRET_KEY, else the data dir's secret.key; undefined when neither is there. */
export function findSecretKey(config: SecretKeyConfig): string | undefined {
  if (config.GATEWAY_SECRET_KEY) return config.GATEWAY_SECRET_KEY;
  const path = secretKeyPath(config);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : undefined;
}

/**
 * The master key: GATEWAY_SECRET_KEY when given; with the embedded database and no value, the
 * data dir's secret.key, generated (mode 0600) only when `mayGenerate` (the database holds
 * nothing encrypted yet: src/crypto/master-keys.ts decides). An external database without a
 * key is refused: data encrypted with a key nobody saved would be lost.
 */
export function resolveSecretKey(config: SecretKeyConfig, log: (message: string) => void, mayGenerate = true): string {
  const found = findSecretKey(config);
  if (found) return found;
  if (config.DATABASE_URL) {
    throw new ConfigError('GATEWAY_SECRET_KEY is required when DATABASE_URL is set (base64 of 32 bytes; generate one with: openssl rand -base64 32)');
  }
  const path = secretKeyPath(config);
  if (!mayGenerate) throw new ConfigError(`Cheia principală lipsește: nu există ${path} și nici GATEWAY_SECRET_KEY.`);
  mkdirSync(config.GATEWAY_DATA_DIR, { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
  log(`Generated a new master key in ${path} (mode 0600). Back it up: without it, stored credentials cannot be decrypted.`);
  return key;
}
