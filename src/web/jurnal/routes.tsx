import { Hono } from 'hono';
import type { AppContext } from '../../context';
import { listJournal } from '../../services/journal/list';
import type { WebEnv } from '../env';
import { Layout } from '../layout';
import { Notice } from '../notice';
import { DateRange } from '../ui/date-range';
import { JournalSection } from './list';
import { EVENT_LABEL, levelLabel } from './labels';
import { JurnalQuery } from './query';

const PAGE_SIZE = 100;

/** Every known event by its Romanian name, and the one in the address when it is not known. */
function eventOptions(current: string | undefined): Array<[string, string]> {
  const known = Object.entries(EVENT_LABEL).sort((a, b) => a[1].localeCompare(b[1], 'ro'));
  return current && !(current in EVENT_LABEL) ? [[current, current], ...known] : known;
}

function Filters({ q }: { q: JurnalQuery }) {
  return (
    <form class="filters" method="get" action="/jurnal">
      <label>
        Eveniment
        <select name="eveniment">
          <option value="">toate</option>
          {eventOptions(q.eveniment).map(([name, label]) => (
            <option value={name} selected={q.eveniment === name}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Nivel
        <select name="nivel">
          <option value="">toate</option>
          {(['error', 'warn', 'info', 'debug'] as const).map((l) => (
            <option value={l} selected={q.nivel === l}>
              {levelLabel(l)}
            </option>
          ))}
        </select>
      </label>
      <DateRange from={q.de_la} to={q.pana_la} />
      <label>
        Cererea (request id)
        <input name="cerere" value={q.cerere ?? ''} maxlength={64} />
      </label>
      <button type="submit">Filtrează</button>
      <a href="/jurnal">Șterge filtrele</a>
    </form>
  );
}

/**
 * Jurnal: the app_events table (already redacted when written, like the file), newest first,
 * keyset pages. A user sees their account's events; an admin sees every account's.
 */
export function jurnalRoutes(ctx: AppContext) {
  return new Hono<WebEnv>().get('/jurnal', async (c) => {
    const { user, csrfToken } = c.get('session');
    const parsed = JurnalQuery.safeParse(c.req.query());
    const q = parsed.success ? parsed.data : JurnalQuery.parse({});
    const { items, nextBefore, allAccounts } = await listJournal({
      ctx,
      actor: c.get('actor'),
      filters: { event: q.eveniment, level: q.nivel, from: q.de_la, to: q.pana_la, requestId: q.cerere, before: q.inainte, limit: PAGE_SIZE },
    });
    return c.html(
      <Layout title="Jurnal" tab="jurnal" user={user} csrfToken={csrfToken} alerts={c.get('alerts')}>
        <h1>Jurnal</h1>
        <p class="muted">
          {allAccounts ? 'Evenimentele tuturor conturilor (sunteți administrator).' : `Evenimentele contului ${user.accountId}.`} Datele personale sunt mascate, ca în fișierul
          jurnalului.
        </p>
        {parsed.success ? null : (
          <Notice
            kind="error"
            cod="FORMULAR_INVALID"
            cauza="Filtrele nu sunt valide (data în forma zz.ll.aaaa, evenimentul din litere mici, cifre și _); se arată jurnalul nefiltrat."
          />
        )}
        <Filters q={q} />
        <JournalSection q={q} items={items} nextBefore={nextBefore} allAccounts={allAccounts} />
      </Layout>,
      parsed.success ? 200 : 422,
    );
  });
}
