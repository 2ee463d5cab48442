import { decryptJson } from '../src/crypto/envelope';
import { RegCredentials } from '../src/domain/submission-input';
import type { WorkerContext } from './context';

export interface CredentialSources {
  /** The submission's own, from reg_credentials of its request (ephemeral). */
  submissionCredsEnc: string | null;
  /** The account's durable ones (POST /v1/conturi/reg-creds). */
  accountCredsEnc: string | null;
}

export interface ResolvedCredentials {
  credentials: RegCredentials;
  source: 'submission' | 'account';
}

/**
 * The submission's own credentials before the account's. Decrypted here and held only in
 * memory for the login; a value that no longer decrypts (a lost master key) counts as absent.
 */
export function resolveCredentials(ctx: WorkerContext, sources: CredentialSources, meta: { accountId: number; submissionId: number }): ResolvedCredentials | null {
  const candidates = [
    ['submission', sources.submissionCredsEnc],
    ['account', sources.accountCredsEnc],
  ] as const;
  for (const [source, enc] of candidates) {
    if (!enc) continue;
    try {
      const parsed = RegCredentials.safeParse(decryptJson(ctx.keyring, enc));
      if (parsed.success) return { credentials: parsed.data, source };
      throw new Error('stored credentials have the wrong shape');
    } catch (error) {
      ctx.journal.write({
        event: 'worker_creds_unreadable',
        level: 'warn',
        accountId: meta.accountId,
        submissionId: meta.submissionId,
        data: { source, reason: error instanceof Error ? error.message : 'unreadable' },
      });
    }
  }
  return null;
}
