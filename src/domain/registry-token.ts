// The registry's token lives 30 hours (registry-protocol.md). One value for every reader: the
// worker trusts a session that long when the registry does not say, the simulated registry issues
// tokens that long, and /healthz and the Cont page call a login within it a live session.

export const REGISTRY_TOKEN_HOURS = 30;
export const REGISTRY_TOKEN_TTL_S = REGISTRY_TOKEN_HOURS * 3_600;

/** Whether a registry login at `at` is still within its token's life at `now`. */
export function registrySessionLive(at: Date, now: Date = new Date()): boolean {
  return now.getTime() - at.getTime() < REGISTRY_TOKEN_TTL_S * 1000;
}
