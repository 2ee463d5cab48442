import { describe, expect, it } from 'vitest';
import { outcomeOfFailure, type FailureContext, type Phase } from '../../worker/failures';
import { createOutageReporter } from '../../worker/outage';
import { CredentialsRefusedError, NoCredentialsError } from '../../worker/login';
import { RegistryHttpError, RegistryNetworkError } from '../../worker/registry/client';
import { RecordError } from '../../worker/registry/record';
import { backoffSeconds, checkSettings, workerSettings } from '../../worker/settings';
import { parseConfig } from '../../src/config';

const settings = { maxAttempts: 3, backoffBaseS: 10, backoffMaxS: 900, credsRetryS: 300, credsRetryMaxS: 3600 };
const at = (phase: Phase, attempts = 1, extra: Partial<FailureContext> = {}): FailureContext => ({ phase, attempts, credentialWaits: 0, settings, random: () => 0.5, ...extra });
const http = (status: number, mesaj: string | null = null, cod: string | null = null) => new RegistryHttpError(status, 12, cod, mesaj);
const net = (aborted = false) => new RegistryNetworkError('no answer', 1500, aborted);

describe('outcomeOfFailure: the spec’s outcome table', () => {
  it('login 401 → error REG_LOGIN_RESPINS, no retry', () => {
    expect(outcomeOfFailure(http(401, 'parolă greșită'), at('login'))).toMatchObject({
      kind: 'error',
      outcome: 'login_rejected',
      regError: { cod: 'REG_LOGIN_RESPINS', http_status: 401, mesaj_registru: 'parolă greșită' },
    });
  });

  it('the account’s credentials refused before → the same error, without the registry’s answer: no login was made', () => {
    expect(outcomeOfFailure(new CredentialsRefusedError('refused'), at('login'))).toMatchObject({
      kind: 'error',
      outcome: 'login_rejected',
      httpStatus: null,
      regError: { cod: 'REG_LOGIN_RESPINS', http_status: null, mesaj_registru: null },
    });
  });

  it('401 on a data call → back to the queue at once; repeated refusals back off, then error', () => {
    expect(outcomeOfFailure(http(401), at('send', 1))).toMatchObject({ kind: 'requeue', outcome: 'token_expired', delayS: 0, countsAsAttempt: true });
    expect(outcomeOfFailure(http(401), at('reconcile', 2))).toMatchObject({ kind: 'requeue', delayS: 10 });
    expect(outcomeOfFailure(http(401), at('send', 3))).toMatchObject({ kind: 'error', regError: { cod: 'REG_TOKEN_EXPIRAT' } });
  });

  it('5xx at any phase → error REG_EROARE_SERVER, never retried', () => {
    for (const phase of ['login', 'reconcile', 'send'] as const) {
      expect(outcomeOfFailure(http(503), at(phase))).toMatchObject({ kind: 'error', outcome: 'registry_error', regError: { cod: 'REG_EROARE_SERVER', http_status: 503 } });
    }
  });

  it('400 on send → error REG_CONTINUT_RESPINS with the registry’s reason in the three levels', () => {
    const o = outcomeOfFailure(http(400, 'VIN necunoscut', 'E12'), at('send'));
    expect(o).toMatchObject({ kind: 'error', outcome: 'rejected' });
    if (o.kind !== 'error') throw new Error('unreachable');
    expect(o.regError).toEqual({
      cod: 'REG_CONTINUT_RESPINS',
      problema: 'Registrul a refuzat conținutul înregistrării.',
      cauza: 'E12: VIN necunoscut',
      fix: 'Corectați datele conform mesajului registrului și retrimiteți.',
      mesaj_registru: 'VIN necunoscut',
      http_status: 400,
    });
  });

  it('no answer while sending → in doubt, retried with backoff up to the limit, then error REG_RETEA', () => {
    expect(outcomeOfFailure(net(), at('send', 1))).toMatchObject({ kind: 'requeue', outcome: 'in_doubt', delayS: 10, regError: { cod: 'REG_RETEA' } });
    expect(outcomeOfFailure(net(), at('send', 2))).toMatchObject({ kind: 'requeue', delayS: 20 });
    expect(outcomeOfFailure(net(), at('send', 3))).toMatchObject({ kind: 'error', outcome: 'in_doubt', regError: { cod: 'REG_RETEA' } });
  });

  it('no answer before sending → retried, not in doubt', () => {
    expect(outcomeOfFailure(net(), at('login'))).toMatchObject({ kind: 'requeue', outcome: 'network_error' });
  });

  it('shutdown: an aborted send is in doubt; anything earlier is released without counting', () => {
    expect(outcomeOfFailure(net(true), at('send'))).toMatchObject({ kind: 'requeue', outcome: 'in_doubt', delayS: 0, countsAsAttempt: true });
    expect(outcomeOfFailure(net(true), at('login'))).toMatchObject({ kind: 'requeue', outcome: 'released', delayS: 0, countsAsAttempt: false });
  });

  it('no credentials → queued with REG_CREDENTIALE_LIPSA, growing wait, not an attempt', () => {
    expect(outcomeOfFailure(new NoCredentialsError(), at('login'))).toMatchObject({
      kind: 'requeue',
      outcome: 'no_credentials',
      delayS: 300,
      countsAsAttempt: false,
      regError: { cod: 'REG_CREDENTIALE_LIPSA' },
    });
    expect(outcomeOfFailure(new NoCredentialsError(), at('login', 1, { credentialWaits: 2 }))).toMatchObject({ delayS: 1200 });
    expect(outcomeOfFailure(new NoCredentialsError(), at('login', 1, { credentialWaits: 10 }))).toMatchObject({ delayS: 3600 });
  });

  it('a stored record that cannot be built → error, nothing sent', () => {
    expect(outcomeOfFailure(new RecordError('odometruFinal is missing'), at('prepare'))).toMatchObject({
      kind: 'error',
      outcome: 'invalid_record',
      regError: { cod: 'REG_EROARE' },
    });
  });
});

describe('settings', () => {
  it('backoff doubles from the base, is capped, with ±20 % jitter', () => {
    expect(backoffSeconds(1, 10, 900, () => 0.5)).toBe(10);
    expect(backoffSeconds(4, 10, 900, () => 0.5)).toBe(80);
    expect(backoffSeconds(20, 10, 900, () => 0.5)).toBe(900);
    expect(backoffSeconds(1, 10, 900, () => 0)).toBeCloseTo(8);
    expect(backoffSeconds(1, 10, 900, () => 1)).toBeCloseTo(12);
  });

  it('defaults are consistent; a registry timeout beyond the staleness window is refused', () => {
    const config = parseConfig({});
    expect(checkSettings(workerSettings(config), config.GATEWAY_REGISTRY_TIMEOUT_MS)).toEqual([]);
    const bad = parseConfig({ GATEWAY_SENDING_STALE_S: '10', GATEWAY_REGISTRY_TIMEOUT_MS: '15000', GATEWAY_WORKER_HEARTBEAT_S: '6' });
    expect(checkSettings(workerSettings(bad), bad.GATEWAY_REGISTRY_TIMEOUT_MS)).toHaveLength(2);
  });
});

describe('createOutageReporter: a database outage is two lines, not one per tick', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const setup = () => {
    const lines: string[] = [];
    const events: Array<{ event: string; level?: string; data?: unknown }> = [];
    let clock = 0;
    const log = { info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`), error: (m: string) => lines.push(`error ${m}`) };
    const reporter = createOutageReporter(log, { write: (e) => void events.push(e) }, () => clock);
    return { lines, events, reporter, advance: (ms: number) => (clock += ms) };
  };

  it('one warning when the database goes, one line when it is back, with how long and how many attempts failed', () => {
    const { lines, events, reporter, advance } = setup();
    reporter.succeeded(); // nothing was wrong: nothing said
    for (let i = 0; i < 40; i++) {
      reporter.failed(i % 2 ? 'claim' : 'heartbeat', refused);
      advance(500);
    }
    reporter.succeeded();
    reporter.succeeded();
    expect(lines).toEqual([
      'warn The database cannot be reached (heartbeat: Error: connect ECONNREFUSED 127.0.0.1:5432); every task retries on its schedule',
      'info The database is reachable again, after 20 s (40 failed attempts meanwhile)',
    ]);
    expect(events.map((e) => e.event)).toEqual(['worker_database_unavailable', 'worker_database_back']);
    expect(events[1]!.data).toEqual({ seconds: 20, failed_attempts: 40 });
    // A second outage is reported again.
    reporter.failed('claim', refused);
    expect(lines).toHaveLength(3);
  });

  it('any other failure is an error each time, outage or not', () => {
    const { lines, events, reporter } = setup();
    reporter.failed('purge', new Error('relation "x" does not exist'));
    reporter.failed('purge', new Error('relation "x" does not exist'));
    expect(lines).toEqual(['error purge failed: Error: relation "x" does not exist', 'error purge failed: Error: relation "x" does not exist']);
    expect(events.map((e) => [e.event, e.level])).toEqual([
      ['worker_task_failed', 'error'],
      ['worker_task_failed', 'error'],
    ]);
  });
});
