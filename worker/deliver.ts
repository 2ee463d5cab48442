import type { CanonicalContent } from '../src/domain/canonical';
import type { ClaimedJob } from './claim';
import type { WorkerContext } from './context';
import { resolveCredentials } from './credentials';
import { outcomeOfFailure, type Outcome, type Phase } from './failures';
import { deferCredentialWaits } from './credential-waits';
import { ensureSession, NoCredentialsError } from './login';
import type { OutcomeWriter } from './outcome';
import { RegistryHttpError, RegistryNetworkError } from './registry/client';
import { buildRecord, RecordError, sameRecord, StoredItem, type RegistryRecord } from './registry/record';
import type { Session } from './sessions';
import { retireSession } from './shared-sessions';

const StoredItems = StoredItem.array();

function recordOf(ctx: WorkerContext, job: ClaimedJob): RegistryRecord {
  const items = StoredItems.safeParse(job.prestatii ?? []);
  if (!items.success) throw new RecordError('stored prestatii are not resolved codes');
  return buildRecord(job.payload as unknown as CanonicalContent, items.data, ctx.protocol);
}

/** The registry id of a record it already holds for this login, if any. */
async function findInRegistry(ctx: WorkerContext, session: Session, record: RegistryRecord, signal: AbortSignal) {
  const { value, latencyMs } = await ctx.registry.finalised(session.token, { dataStart: record.dataPrestatie, dataEnd: record.dataPrestatie }, signal);
  return { match: value.find((listed) => sameRecord(listed, record) && listed.id), latencyMs };
}

/**
 * Delivers one claimed submission and records what happened. Never throws for a registry
 * outcome: every path ends in the outcome writer. `signal` aborts the registry call at shutdown.
 */
export async function deliver(ctx: WorkerContext, job: ClaimedJob, signal: AbortSignal, writer: OutcomeWriter): Promise<Outcome> {
  let phase: Phase = 'prepare';
  let session: Session | undefined;
  let outcome: Outcome | undefined;
  try {
    const record = recordOf(ctx, job);
    phase = 'login';
    session = await ensureSession(ctx, job, () => resolveCredentials(ctx, job, { accountId: job.accountId, submissionId: job.id }), signal);
    if (signal.aborted) throw new RegistryNetworkError('shutting down', 0, true);
    // One of the account's registry slots for the reconciliation and the send; it is freed
    // before the outcome is written, so the next submission's call starts at once.
    const release = await ctx.limiter.acquire(job.accountId, signal);
    try {
      if (job.inDoubt) {
        // An earlier attempt may have reached the registry: look before sending again.
        phase = 'reconcile';
        const { match, latencyMs } = await findInRegistry(ctx, session, record, signal);
        if (match) outcome = { kind: 'sent', outcome: 'reconciled', registryId: match.id, httpStatus: 200, latencyMs };
      }
      if (!outcome) {
        phase = 'send';
        const { value, status, latencyMs } = await ctx.registry.send(session.token, record, signal);
        outcome = { kind: 'sent', outcome: 'sent', registryId: value.id, httpStatus: status, latencyMs };
      }
    } finally {
      release();
    }
  } catch (error) {
    if (error instanceof RegistryHttpError && error.status === 401 && session) {
      // The token was refused on a data call: this session is over for every send of the account.
      await retireSession(ctx, job.accountId, session);
    }
    outcome = outcomeOfFailure(error, { phase, attempts: job.attempts, credentialWaits: job.credentialWaits, settings: ctx.settings });
    if (error instanceof NoCredentialsError && outcome.kind === 'requeue') {
      // Before this row leaves `sending`, so the next claim finds the others waiting too.
      await deferCredentialWaits(ctx, job, outcome).catch((failure: unknown) => {
        // They are claimed one by one instead, as before.
        ctx.journal.write({ event: 'worker_credentials_wait_failed', level: 'warn', accountId: job.accountId, data: { error: String(failure) } });
      });
    }
  }
  // A login's erasure of ephemeral credentials precedes every outcome recorded under it.
  await session?.bookkeeping;
  await writer.record(job, outcome);
  return outcome;
}
