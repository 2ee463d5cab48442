import type { Sql } from '../../db/client';
import { createDb } from '../../db/client';
import { ConfigError, type Config } from '../config';
import { databaseConnection } from '../database-connection';
import { createKeyring } from './envelope';
import { resolveSecretKey, secretKeyPath } from './secret-key';

// Any constant: processes that start together on a new database record their keys one at a time.
const MASTER_KEYS_LOCK = 727_002;

const GUIDE = 'docs/operations-keys.md';

export async function recordedKeyIds(sql: Sql): Promise<string[]> {
  return (await sql<{ key_id: string }[]>`SELECT key_id FROM master_keys ORDER BY recorded_at, key_id`).map((r) => r.key_id);
}

/**
 * The master key a process may run with, checked against the keys the database records
 * (db/schema/master-keys.ts): a process that could not decrypt what is stored refuses to start
 * with one line naming the missing key id, rather than run (and, with the embedded database,
 * generate a key of its own) beside data it cannot read. Its current key is recorded before it
 * writes anything under it. A tool (`generate: false`) never makes a key.
 */
export async function checkMasterKey(sql: Sql, config: Config, log: (message: string) => void, options: { generate?: boolean } = {}): Promise<string> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MASTER_KEYS_LOCK})`;
    const recorded = await recordedKeyIds(tx as unknown as Sql);
    const given = config.GATEWAY_SECRET_KEY !== undefined;
    let secret: string;
    try {
      secret = resolveSecretKey(config, log, recorded.length === 0 && options.generate !== false);
    } catch (error) {
      if (!(error instanceof ConfigError) || recorded.length === 0) throw error;
      const absent = config.DATABASE_URL ? 'GATEWAY_SECRET_KEY nu este dat' : `nu există ${secretKeyPath(config)} și nici GATEWAY_SECRET_KEY`;
      throw new ConfigError(
        `Cheia principală ${recorded.join(', ')} lipsește: datele din baza de date sunt criptate cu ea, dar ${absent}. Puneți cheia la loc (o cheie nouă nu ar citi nimic din ce e stocat; ${GUIDE}).`,
      );
    }
    const keyring = createKeyring(secret, config.GATEWAY_OLD_SECRET_KEYS);
    const missing = recorded.filter((id) => !keyring.knows(id));
    if (missing.length > 0) {
      const source = given ? 'GATEWAY_SECRET_KEY' : secretKeyPath(config);
      const which = missing.length === 1 ? `Cheia principală ${missing[0]} lipsește` : `Cheile principale ${missing.join(', ')} lipsesc`;
      throw new ConfigError(
        `${which}: baza de date are date criptate cu ea, iar cheia dată (${keyring.currentKeyId}, din ${source}) și GATEWAY_OLD_SECRET_KEYS nu o conțin. Dați cheia lipsă în GATEWAY_SECRET_KEY sau GATEWAY_OLD_SECRET_KEYS (${GUIDE}).`,
      );
    }
    await tx`INSERT INTO master_keys (key_id) VALUES (${keyring.currentKeyId}) ON CONFLICT (key_id) DO NOTHING`;
    return secret;
  });
}

/** checkMasterKey on a connection of its own, for a process's start. */
export async function openMasterKey(config: Config, databaseUrl: string, log: (message: string) => void): Promise<string> {
  const { sql, close } = createDb(databaseUrl, { max: 1, connection: databaseConnection(config, databaseUrl) });
  try {
    return await checkMasterKey(sql, config, log);
  } finally {
    await close();
  }
}
