import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { REGISTRY_TOKEN_TTL_S } from '../../src/domain/registry-token';
import { FALLBACK_NOMENCLATOR } from '../../db/fallback-nomenclator';

// What the simulated registry knows and how it misbehaves on request. The HTTP layer
// (simulator.ts) is a thin shell around this, so a test can also drive it directly.

/** A fault answered `times` more times (null: until reset). Status 0 drops the connection without storing anything. */
export const FaultRule = z.object({
  status: z.number().int().min(0).max(599),
  times: z.number().int().positive().nullable().default(null),
  cod: z.string().optional(),
  mesaj: z.string().optional(),
});
export type FaultRule = z.infer<typeof FaultRule>;

export const SimFaults = z.object({
  /** Added before every registry call is answered. */
  latencyMs: z.number().int().min(0).default(0),
  login: FaultRule.nullable().default(null),
  send: FaultRule.nullable().default(null),
  list: FaultRule.nullable().default(null),
  /** A send is stored, then answered after this delay (the answer may come after the client gave up). */
  sendDelayMs: z.number().int().min(0).default(0),
  /** A send is stored, then answered only on release: a worker killed meanwhile never hears back. */
  holdSends: z.boolean().default(false),
});
export type SimFaults = z.infer<typeof SimFaults>;

/** The body of a send, exactly as registry-protocol.md gives it: unknown fields (tipPrestatie) are refused. */
export const SentRecord = z
  .object({
    vin: z.string().length(17),
    nrInmatriculare: z.string().min(1).max(10),
    dataPrestatie: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    odometruInitial: z.number().nullable(),
    odometruFinal: z.number(),
    obs: z.string(),
    prestatii: z.array(z.object({ codPrestatie: z.string().min(1), numePrestatie: z.string(), idPrezentare: z.number().nullable() }).strict()).min(1),
    sistemReparat: z.string().nullable(),
    status: z.literal('FINALIZATA'),
    b64Image: z.string(),
  })
  .strict();
export type SentRecord = z.infer<typeof SentRecord>;

export interface StoredRecord {
  id: number;
  username: string;
  receivedAt: Date;
  record: SentRecord;
}

export function parseSimUsers(spec: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const pair of spec
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = pair.indexOf(':');
    if (at <= 0) throw new Error(`GATEWAY_SIM_USERS: "${pair.split(':')[0]}" needs the form user:password`);
    users.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return users;
}

export function createSimState(users: Map<string, string>) {
  const tokens = new Map<string, { username: string; expiresAt: number }>();
  const state = {
    users,
    faults: SimFaults.parse({}),
    records: [] as StoredRecord[],
    nextId: 98_765,
    // The service codes it lists; a test may add some to see the worker's refresh upsert them.
    nomenclator: FALLBACK_NOMENCLATOR.map(({ cod, denumire }) => ({ cod, denumire })),
    counters: { logins: 0, failedLogins: 0, sends: 0, refusedSends: 0, refusedTokens: 0, listCalls: 0, nomenclatorCalls: 0, refusedWithoutUserAgent: 0 },
    tokens,
  };

  /** The most sends answered at once, per login: the worker's limit, observed. */
  const maxConcurrentSends = new Map<string, number>();

  return {
    users,
    tokens,
    /** Sends being answered now, per login. */
    sendsInFlight: new Map<string, number>(),
    maxConcurrentSends,
    /** Every User-Agent that reached the registry paths, to check what the client sends. */
    userAgents: new Set<string>(),
    counters: state.counters,
    get faults() {
      return state.faults;
    },
    get records() {
      return state.records;
    },
    nomenclator: state.nomenclator,
    setFaults(patch: Partial<SimFaults>) {
      state.faults = SimFaults.parse({ ...state.faults, ...patch });
    },
    reset(clearRecords = false) {
      state.faults = SimFaults.parse({});
      if (clearRecords) {
        state.records = [];
        for (const key of Object.keys(state.counters) as Array<keyof typeof state.counters>) state.counters[key] = 0;
        maxConcurrentSends.clear();
      }
    },
    /** The fault to apply now, consuming one of its `times`. */
    takeFault(kind: 'login' | 'send' | 'list'): FaultRule | null {
      const rule = state.faults[kind];
      if (!rule) return null;
      if (rule.times !== null) {
        const left = rule.times - 1;
        state.faults = { ...state.faults, [kind]: left > 0 ? { ...rule, times: left } : null };
      }
      return rule;
    },
    login(username: string, password: string): string | null {
      if (users.get(username) !== password) {
        state.counters.failedLogins += 1;
        return null;
      }
      state.counters.logins += 1;
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, { username, expiresAt: Date.now() + REGISTRY_TOKEN_TTL_S * 1000 });
      return token;
    },
    userOf(token: string | undefined): string | null {
      const entry = token ? tokens.get(token) : undefined;
      return entry && entry.expiresAt > Date.now() ? entry.username : null;
    },
    expireTokens() {
      tokens.clear();
    },
    activeTokens(): number {
      return [...tokens.values()].filter((t) => t.expiresAt > Date.now()).length;
    },
    store(username: string, record: SentRecord): StoredRecord {
      const stored = { id: state.nextId++, username, receivedAt: new Date(), record };
      state.records.push(stored);
      state.counters.sends += 1;
      return stored;
    },
    /** Records this login sent with a status of FINALIZATA, within the date range. */
    finalised(username: string, dataStart: string, dataEnd: string): StoredRecord[] {
      state.counters.listCalls += 1;
      return state.records.filter((r) => r.username === username && r.record.dataPrestatie >= dataStart && r.record.dataPrestatie <= dataEnd);
    },
    /** Records received more than once (same VIN, date, odometer and codes): must stay 0. */
    duplicates(): number {
      const seen = new Set<string>();
      let dup = 0;
      for (const { record: r } of state.records) {
        const key = [
          r.vin,
          r.dataPrestatie,
          r.odometruFinal,
          r.prestatii
            .map((p) => p.codPrestatie)
            .sort()
            .join('|'),
        ].join('/');
        if (seen.has(key)) dup += 1;
        seen.add(key);
      }
      return dup;
    },
  };
}
export type SimState = ReturnType<typeof createSimState>;
