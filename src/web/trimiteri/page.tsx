import type { Child } from 'hono/jsx';
import type { SessionUser } from '../../services/users/sessions';
import type { AccountAlerts } from '../../services/accounts/alerts';
import { Layout } from '../layout';
import { Notice } from '../notice';
import { DateRange } from '../ui/date-range';
import { showInstant } from '../ui/format';
import { SubmissionsSection, ViewField, type ListData } from './list';
import { SUBSTRING_HINT, type SubmissionsQuery } from './query';

/** The filters: plain GET form (works without script), swapped in place by htmx. */
function Filters({ q }: { q: SubmissionsQuery }) {
  return (
    <form id="filtre" class="filters" method="get" action="/" hx-get="/_fragments/coada" hx-target="#coada" hx-swap="outerMorph">
      <ViewField q={q} />
      {q.cauza ? <input type="hidden" name="cauza" value={q.cauza} /> : null}
      <label>
        Nr. înmatriculare sau VIN (orice parte)
        <input type="search" name="cauta" value={q.cauta ?? ''} maxlength={40} placeholder="ex. 123ABC" aria-describedby="cauta-ajutor" />
      </label>
      <DateRange from={q.de_la} to={q.pana_la} />
      <button type="submit">Caută</button>
      <a href="/">Șterge filtrele</a>
      <p id="cauta-ajutor" class="muted small">
        {SUBSTRING_HINT}
      </p>
    </form>
  );
}

/**
 * The home page: the import screen's upload and earlier imports (`imports`), then the
 * permanent submissions section (filters, the polled list, the detail panel).
 */
export function SubmissionsPage(props: {
  user: SessionUser;
  csrfToken: string;
  list: ListData;
  panel?: Child;
  now: Date;
  invalidQuery: boolean;
  alerts?: AccountAlerts;
  imports?: Child;
}) {
  const { q } = props.list;
  return (
    <Layout title="Trimiteri" tab="trimiteri" user={props.user} csrfToken={props.csrfToken} alerts={props.alerts} skipTo={{ id: 'lista-titlu', label: 'Sari la listă' }}>
      <div class="split">
        <div class="main-col">
          <h1>Trimiteri</h1>
          {props.imports}
          <h2 class="section-title">Trimiterile</h2>
          {props.invalidQuery ? <Notice kind="error" cod="FORMULAR_INVALID" cauza="Filtrele din adresă nu sunt valide; se arată vederea implicită." /> : null}
          <Filters q={q} />
          <p class="updated">
            Actualizat la <time id="actualizat">{showInstant(props.now).slice(11)}</time> · <span id="stare-actualizare">se reîmprospătează automat</span>
          </p>
          {/* Where a failed refresh, filter or page says so: the list below stays as it was. */}
          <div id="coada-stare" aria-live="polite"></div>
          <div id="confirmare" aria-live="polite"></div>
          <SubmissionsSection {...props.list} />
        </div>
        <aside id="panou" aria-live="polite">
          {props.panel}
        </aside>
      </div>
    </Layout>
  );
}
