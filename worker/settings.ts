import { ConfigError, type Config } from '../src/config';
import { REGISTRY_TOKEN_TTL_S } from '../src/domain/registry-token';

/** The worker's tuning, read from the one parsed configuration. */
export interface WorkerSettings {
  /** Registry calls in flight per account, for the whole deployment: one worker sends an account at a time (claim.ts). */
  concurrencyPerAccount: number;
  /** Sends in flight in this process. */
  maxInflight: number;
  heartbeatS: number;
  /** A `sending` row whose heartbeat is older than this is recovered (reconciled, then resent if absent). */
  staleS: number;
  /** Network failures and expired tokens retried before the submission goes to `error`. */
  maxAttempts: number;
  backoffBaseS: number;
  backoffMaxS: number;
  credsRetryS: number;
  credsRetryMaxS: number;
  shutdownS: number;
  /** How long a registry session is trusted when the registry does not say (the token's life). */
  sessionTtlS: number;
}

export function workerSettings(config: Config): WorkerSettings {
  return {
    concurrencyPerAccount: config.GATEWAY_WORKER_CONCURRENCY,
    maxInflight: config.GATEWAY_WORKER_MAX_INFLIGHT,
    heartbeatS: config.GATEWAY_WORKER_HEARTBEAT_S,
    staleS: config.GATEWAY_SENDING_STALE_S,
    maxAttempts: config.GATEWAY_WORKER_MAX_ATTEMPTS,
    backoffBaseS: config.GATEWAY_WORKER_BACKOFF_S,
    backoffMaxS: 15 * 60,
    credsRetryS: config.GATEWAY_WORKER_CREDS_RETRY_S,
    credsRetryMaxS: 60 * 60,
    shutdownS: config.GATEWAY_WORKER_SHUTDOWN_S,
    sessionTtlS: REGISTRY_TOKEN_TTL_S,
  };
}

/**
 * Exponential backoff with ±20 % jitter, so retries of many submissions after one outage
 * do not arrive at the registry together: base · 2^(n−1), capped.
 */
export function backoffSeconds(n: number, baseS: number, maxS: number, random: () => number = Math.random): number {
  const raw = Math.min(baseS * 2 ** Math.max(0, n - 1), maxS);
  return raw * (0.8 + 0.4 * random());
}

/** Settings that contradict each other would break the never-twice guarantee; refuse them. */
export function checkSettings(settings: WorkerSettings, registryTimeoutMs: number): string[] {
  const problems: string[] = [];
  if (settings.heartbeatS * 2 > settings.staleS) {
    problems.push(`GATEWAY_WORKER_HEARTBEAT_S (${settings.heartbeatS}) must be at most half of GATEWAY_SENDING_STALE_S (${settings.staleS})`);
  }
  if (registryTimeoutMs / 1000 >= settings.staleS) {
    // A live worker must give up on a call before another worker may take its row over.
    problems.push(`GATEWAY_REGISTRY_TIMEOUT_MS (${registryTimeoutMs}) must be below GATEWAY_SENDING_STALE_S (${settings.staleS} s)`);
  }
  return problems;
}

/** Refuses, with every reason, settings under which the worker must not run (the server checks before spawning it). */
export function assertWorkerSettings(config: Config): void {
  const problems = checkSettings(workerSettings(config), config.GATEWAY_REGISTRY_TIMEOUT_MS);
  if (problems.length) throw new ConfigError(`Invalid worker configuration:\n  ${problems.join('\n  ')}`);
}
