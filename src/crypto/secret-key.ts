import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, type Config } from '../config';

/**
 * The master key: GATEWAY_SECRET_KEY when given; with the embedded database and no
 * value, one generated into the data dir (mode 0600). An external database without a
 * key is refused: data encrypted with a key nobody saved would be lost.
 */
export function resolveSecretKey(config: Pick<Config, 'GATEWAY_SECRET_KEY' | 'DATABASE_URL' | 'GATEWAY_DATA_DIR'>, log: (message: string) => void): string {
  if (config.GATEWAY_SECRET_KEY) return config.GATEWAY_SECRET_KEY;
  if (config.DATABASE_URL) {
    throw new ConfigError('GATEWAY_SECRET_KEY is required when DATABASE_URL is set (base64 of 32 bytes; generate one with: openssl rand -base64 32)');
  }
  const path = join(config.GATEWAY_DATA_DIR, 'secret.key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(config.GATEWAY_DATA_DIR, { recursive: true });
  const key = randomBytes(32).toString('base64');
  writeFileSync(path, `${key}\n`, { mode: 0o600, flag: 'wx' });
  log(`Generated a new master key in ${path} (mode 0600). Back it up: without it, stored credentials cannot be decrypted.`);
  return key;
}
