import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../config';

const MIN_CHARS = 12;

/** The backup passphrase: GATEWAY_BACKUP_PASSPHRASE_FILE's first line, else GATEWAY_BACKUP_PASSPHRASE. */
export function backupPassphrase(config: Pick<Config, 'GATEWAY_BACKUP_PASSPHRASE' | 'GATEWAY_BACKUP_PASSPHRASE_FILE'>): string {
  if (config.GATEWAY_BACKUP_PASSPHRASE_FILE) {
    let text: string;
    try {
      text = readFileSync(config.GATEWAY_BACKUP_PASSPHRASE_FILE, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `GATEWAY_BACKUP_PASSPHRASE_FILE: ${config.GATEWAY_BACKUP_PASSPHRASE_FILE} nu se poate citi (${(error as NodeJS.ErrnoException).code ?? String(error)}).`,
      );
    }
    const passphrase = text.split(/\r?\n/)[0] ?? '';
    if (passphrase.length < MIN_CHARS) throw new ConfigError(`GATEWAY_BACKUP_PASSPHRASE_FILE: parola din ${config.GATEWAY_BACKUP_PASSPHRASE_FILE} are sub ${MIN_CHARS} caractere.`);
    return passphrase;
  }
  if (config.GATEWAY_BACKUP_PASSPHRASE) {
    if (config.GATEWAY_BACKUP_PASSPHRASE.length < MIN_CHARS) throw new ConfigError(`GATEWAY_BACKUP_PASSPHRASE: are sub ${MIN_CHARS} caractere.`);
    return config.GATEWAY_BACKUP_PASSPHRASE;
  }
  throw new ConfigError(
    `Arhivele de backup sunt criptate cu o parolă: dați-o în GATEWAY_BACKUP_PASSPHRASE_FILE (un fișier cu parola pe primul rând) sau în GATEWAY_BACKUP_PASSPHRASE, de cel puțin ${MIN_CHARS} caractere (docs/operations-backup.md).`,
  );
}
