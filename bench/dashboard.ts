// npm run bench:dashboard — the dashboard's list and journal against a large account, in one
// run: 100,000 submissions in one account (a few hundred held, the rest sent) and 1,000,000
// journal rows. For each case it prints p50/p95 of the fragment as a browser gets it (through
// the app: session, CSRF-free GET, queries, rendering) beside the same queries run directly
// through the services (the session lookup every signed-in request makes, then the page's
// own queries), and their ratio: what the web layer costs beyond its data. Targets (issue
// 11): p95 ≤ 50 ms for the submissions fragment, ≤ 100 ms for the journal page, rendering
// ≤ 1.5 × the bare queries. The vehicle page (/vehicul/{VIN}, issue 37) is measured in a second
// account of BENCH_VEHICLE_ACCOUNT_ROWS submissions (1,000,000; 0 leaves it out), 200 of them
// of one VIN, which account 1 has 50 records of too: target p95 < 50 ms. BENCH_CASES=vehicle,journal
// measures only the cases whose name holds one of those words.
import type { Actor } from '../src/context';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { startEmbedded } from '../db/embedded';
import { preserveExitCode } from '../db/exit-code';
import { migrate } from '../db/migrate';
import { createApp } from '../src/app';
import { parseConfig } from '../src/config';
import { createContext } from '../src/runtime';
import { listJournal } from '../src/services/journal/list';
import { findSession } from '../src/services/users/sessions';
import { createUser } from '../src/services/users/users';
import { loadList } from '../src/web/trimiteri/load';
import { SubmissionsQuery, dashboardFilters, pageRequest } from '../src/web/trimiteri/query';
import { listDashboard } from '../src/services/submissions/dashboard';
import { vehicleHistory } from '../src/services/vehicles/history';

/** The bench's data is account 1's, read as the development mode reads it. */
const ACCOUNT_1: Actor = { kind: 'dev', accountId: 1 };

const SUBMISSIONS = Number(process.env.BENCH_ROWS ?? 100_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const VEHICLE_ACCOUNT_ROWS = Number(process.env.BENCH_VEHICLE_ACCOUNT_ROWS ?? 1_000_000);
const BENCH_VIN = 'WVWZZZ1KZ6W999999';
const ACCOUNT_2: Actor = { kind: 'dev', accountId: 2 };
const TEST_KEY = Buffer.alloc(32, 7).toString('base64');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

type Timing = { p50: number; p95: number };

async function timed(fn: () => Promise<unknown>, into: number[]) {
  const started = performance.now();
  await fn();
  into.push(performance.now() - started);
}

/**
 * The fragment and its bare queries, one after the other in turn (20 warm-up pairs, then
 * RUNS): on this noisy machine both see the same load, so their ratio holds even when another
 * process starts in the middle.
 */
async function measurePair(fragment: () => Promise<unknown>, bare: () => Promise<unknown>): Promise<{ fragment: Timing; bare: Timing }> {
  for (let i = 0; i < 20; i++) {
    await fragment();
    await bare();
  }
  const times = { fragment: [] as number[], bare: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    await timed(fragment, times.fragment);
    await timed(bare, times.bare);
  }
  const summary = (t: number[]) => {
    t.sort((a, b) => a - b);
    return { p50: percentile(t, 50), p95: percentile(t, 95) };
  };
  return { fragment: summary(times.fragment), bare: summary(times.bare) };
}

async function main() {
  preserveExitCode();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-dashboard-'));
  const pg = await startEmbedded({ dataDir });
  const sql = postgres(pg.url, { max: 2, onnotice: () => {} });
  try {
    await migrate(sql);
    console.log(`seeding ${SUBMISSIONS} submissions and ${EVENTS} journal rows…`);
    await sql`INSERT INTO accounts (name) VALUES ('Service mare')`;
    await sql`
      INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, nemapate, motiv, created_at, updated_at)
      SELECT 1,
        CASE WHEN i % 500 = 0 THEN 'needs_mapping' WHEN i % 700 = 0 THEN 'needs_data' WHEN i % 900 = 0 THEN 'error' ELSE 'sent' END,
        jsonb_build_object('odometruFinal', 150000 + i), 'WDB' || lpad(i::text, 14, '0'), 'B' || lpad((i % 100000)::text, 6, '0') || 'X',
        '2025-' || lpad((1 + i % 12)::text, 2, '0') || '-' || lpad((1 + i % 28)::text, 2, '0'), 'bench-' || i,
        '[{"cod_prestatie":"OE-3","denumire":"REVIZIE","cod_client":"OE-3","sursa":"nomenclator"}]'::jsonb,
        CASE WHEN i % 500 = 0 THEN '["SCH-X"]'::jsonb ELSE '[]'::jsonb END,
        CASE WHEN i % 500 = 0 THEN 'Așteaptă maparea codurilor: SCH-X.' ELSE NULL END,
        now() - (${SUBMISSIONS} - i) * interval '1 minute', now()
      FROM generate_series(1, ${SUBMISSIONS}) AS i`;
    await sql`
      INSERT INTO app_events (ts, level, event, request_id, account_id, data)
      SELECT now() - (${EVENTS} - i) * interval '1 second', CASE WHEN i % 50 = 0 THEN 'warn' ELSE 'info' END,
        (ARRAY['api_prezentari', 'worker_sent', 'rar_login', 'submission_deleted'])[1 + i % 4], 'req-' || i, 1 + (i / 4) % 20, jsonb_build_object('i', i)
      FROM generate_series(1, ${EVENTS}) AS i`;
    // Registry errors by cause, and a few queued rows waiting for credentials ("De rezolvat").
    await sql`UPDATE submissions SET reg_error = jsonb_build_object('cod', (ARRAY['REG_LOGIN_RESPINS', 'REG_CONTINUT_RESPINS', 'REG_EROARE_SERVER'])[1 + id % 3], 'problema', 'x', 'fix', 'y') WHERE status = 'error'`;
    await sql`UPDATE submissions SET status = 'queued', reg_error = '{"cod":"REG_CREDENTIALE_LIPSA","problema":"x","fix":"y"}' WHERE id % 1000 = 1`;
    if (VEHICLE_ACCOUNT_ROWS > 0) {
      // The vehicle page's account: every 5,000th record of one VIN (200 in 1,000,000), the rest
      // of distinct VINs; and 50 records of that VIN in account 1, never on account 2's page.
      await sql`INSERT INTO accounts (name) VALUES ('Service foarte mare')`;
      const every = Math.max(1, Math.floor(VEHICLE_ACCOUNT_ROWS / 200));
      await sql`
        INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, prestatii, registry_id, created_at, updated_at)
        SELECT 2, 'sent', jsonb_build_object('odometruFinal', 10000 + i / 10, 'odometruInitial', 10000 + i / 10 - 50),
          CASE WHEN i % ${every} = 0 THEN ${BENCH_VIN} ELSE 'TMB' || lpad(i::text, 14, '0') END, 'CJ' || lpad((i % 100000)::text, 6, '0'),
          (date '2020-01-01' + (i * 2000 / ${VEHICLE_ACCOUNT_ROWS}))::text, 'bench2-' || i,
          '[{"cod_prestatie":"OE-3","denumire":"REVIZIE","cod_client":"OE-3","sursa":"nomenclator"}]'::jsonb, 'RAR-' || i, now(), now()
        FROM generate_series(1, ${VEHICLE_ACCOUNT_ROWS}) AS i`;
      await sql`
        INSERT INTO submissions (account_id, status, payload_json, vin, nr_inm, data_prestatie, idempotency_key, created_at, updated_at)
        SELECT 1, 'sent', jsonb_build_object('odometruFinal', 5 + i), ${BENCH_VIN}, 'B1X', '2024-06-01', 'bench3-' || i, now(), now()
        FROM generate_series(1, 50) AS i`;
    }
    await sql`VACUUM ANALYZE`;

    const config = parseConfig({
      DATABASE_URL: pg.url,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_SECRET_KEY: TEST_KEY,
      GATEWAY_SCRYPT_N: '1024',
      GATEWAY_LOG_LEVEL: 'error',
      // The searches are costly (issue 32): a bench of 100 in a row would meet the account's budget (429), not the page's time.
      GATEWAY_COSTLY_PER_ACCOUNT: '100000',
      GATEWAY_COSTLY_MAX: '100000',
      GATEWAY_COSTLY_SHARE_PCT: '100',
      GATEWAY_COSTLY_BURST_MS: '3600000',
    });
    const ctx = createContext({ config, databaseUrl: pg.url, secretKey: TEST_KEY, processName: 'bench' });
    const app = createApp(ctx);
    /** A user of the account, signed in through the login form: its session cookie. */
    const signIn = async (accountId: number, email: string) => {
      await createUser(ctx.db, { accountId, email, password: 'parola-de-bench-lunga', admin: false, scryptN: 1024 });
      const form = await app.request('http://localhost/login', { headers: { Host: 'localhost' } });
      const loginCookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const login = await app.request('http://localhost/login', {
        method: 'POST',
        headers: { Host: 'localhost', Origin: 'http://localhost', Cookie: loginCookie, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, email, parola: 'parola-de-bench-lunga' }).toString(),
      });
      return login.headers
        .getSetCookie()
        .find((c) => c.startsWith('gw_sesiune='))!
        .split(';')[0]!;
    };
    const cookie = await signIn(1, 'bench@service.ro');
    const token = cookie.slice('gw_sesiune='.length);
    const cookie2 = VEHICLE_ACCOUNT_ROWS > 0 ? await signIn(2, 'bench2@service.ro') : '';
    /** The queries a signed-in request runs, without the web: its session, then the page's own. */
    const withSession =
      (queries: () => Promise<unknown>, session = token) =>
      async () => {
        await findSession(ctx, session);
        await queries();
      };
    const get = async (path: string, as = cookie) => {
      const res = await app.request(`http://localhost${path}`, { headers: { Host: 'localhost', Cookie: as, 'HX-Request': 'true' } });
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      await res.text();
    };
    const [row] = await sql<{ deep: number }[]>`SELECT id AS deep FROM submissions ORDER BY id OFFSET ${Math.floor(SUBMISSIONS * 0.1)} LIMIT 1`;
    const deep = row!.deep;
    const bare = (query: Record<string, string>) => {
      const q = SubmissionsQuery.parse(query);
      return withSession(() => loadList(ctx, ACCOUNT_1, q));
    };
    // `webCost: false`: only the p95 target is the case's (the vehicle page renders 200 rows and a
    // chart from 2 ms of queries; issue 11's rendering ratio was set for the list fragments).
    const cases: Array<{ name: string; path: string; direct: () => Promise<unknown>; target: number; as?: string; webCost?: false }> = [
      { name: 'submissions, first page', path: '/_fragments/coada?vedere=toate', direct: bare({ vedere: 'toate' }), target: 50 },
      { name: 'submissions, De rezolvat', path: '/_fragments/coada', direct: bare({}), target: 50 },
      { name: 'submissions, plate search', path: '/_fragments/coada?vedere=toate&cauta=B012345X', direct: bare({ vedere: 'toate', cauta: 'B012345X' }), target: 50 },
      { name: 'submissions, substring', path: '/_fragments/coada?vedere=toate&cauta=12345', direct: bare({ vedere: 'toate', cauta: '12345' }), target: 50 },
      { name: 'submissions, common substr.', path: '/_fragments/coada?vedere=toate&cauta=000', direct: bare({ vedere: 'toate', cauta: '000' }), target: 50 },
      { name: 'submissions, VIN substring', path: '/_fragments/coada?vedere=toate&cauta=0004321', direct: bare({ vedere: 'toate', cauta: '0004321' }), target: 50 },
      { name: 'submissions, errors by cause', path: '/_fragments/coada?vedere=error', direct: bare({ vedere: 'error' }), target: 50 },
      { name: 'submissions, deep page', path: `/_fragments/coada?vedere=toate&dupa=${deep}`, direct: bare({ vedere: 'toate', dupa: String(deep) }), target: 50 },
      { name: 'journal, first page', path: '/jurnal', direct: withSession(() => listJournal({ ctx, actor: ACCOUNT_1, filters: { limit: 100 } })), target: 100 },
      {
        name: 'journal, one event',
        path: '/jurnal?eveniment=rar_login',
        direct: withSession(() => listJournal({ ctx, actor: ACCOUNT_1, filters: { event: 'rar_login', limit: 100 } })),
        target: 100,
      },
      ...(VEHICLE_ACCOUNT_ROWS > 0
        ? [
            {
              name: `vehicle page, 200 of ${(VEHICLE_ACCOUNT_ROWS / 1e6).toFixed(1)}M`,
              path: `/vehicul/${BENCH_VIN}`,
              direct: withSession(() => vehicleHistory({ ctx, actor: ACCOUNT_2, vin: BENCH_VIN }), cookie2.slice('gw_sesiune='.length)),
              target: 50,
              as: cookie2,
              webCost: false as const,
            },
          ]
        : []),
    ];
    console.log(`\n${RUNS} runs each, fragment and bare in turn (after 20 warm-up pairs); times in ms`);
    console.log('case                          fragment p50/p95     bare p50/p95     ratio p50   web p50   target p95');
    let failed = false;
    // BENCH_CASES=vehicle: only the cases whose name holds one of these words.
    const only = process.env.BENCH_CASES?.split(',');
    for (const c of cases.filter((k) => !only || only.some((w) => k.name.includes(w)))) {
      const { fragment, bare: direct } = await measurePair(() => get(c.path, c.as), c.direct);
      const ratio = fragment.p50 / direct.p50;
      // A page whose queries take 2 ms costs more than 1.5 × them in a millisecond of layout and
      // middleware: the web layer's cost is judged by the ratio or, for such pages, by the
      // difference (at most 1.5 ms).
      const ok = fragment.p95 <= c.target && (c.webCost === false || ratio <= 1.5 || fragment.p50 - direct.p50 <= 1.5);
      failed ||= !ok;
      console.log(
        `${c.name.padEnd(30)}${fragment.p50.toFixed(1).padStart(7)} / ${fragment.p95.toFixed(1).padEnd(8)}${direct.p50.toFixed(1).padStart(8)} / ${direct.p95.toFixed(1).padEnd(8)}${ratio.toFixed(2).padStart(8)}${(fragment.p50 - direct.p50).toFixed(1).padStart(9)}   ≤ ${c.target} ${ok ? 'ok' : 'MISSED'}`,
      );
    }
    console.log(failed ? '\nsome targets missed (see MISSED)' : '\nall targets met');

    // The search's own queries (its page and its capped count), without the counts per state
    // every list request also makes: what the trigram indexes answer as the account grows.
    console.log('\nsubstring search, its queries alone (page + capped count), p50 / p95 ms');
    for (const term of ['12345', '0004321', '000']) {
      const q = SubmissionsQuery.parse({ vedere: 'toate', cauta: term });
      const run = () => listDashboard({ ctx, actor: ACCOUNT_1, filters: dashboardFilters(q), page: pageRequest(q) });
      const { fragment } = await measurePair(run, async () => {});
      const label = `  "${term}"`.padEnd(14);
      console.log(`${label}${fragment.p50.toFixed(1)} / ${fragment.p95.toFixed(1)}`);
    }
    await ctx.close();
  } finally {
    await sql.end();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
