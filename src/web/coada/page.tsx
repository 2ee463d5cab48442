import type { SubmissionStatus } from '../../domain/statuses';
import type { SessionUser } from '../../services/users/sessions';
import type { SubmissionPage } from '../../services/submissions/read';
import type { AccountAlerts } from '../../services/accounts/alerts';
import { Layout } from '../layout';
import { Notice } from '../notice';
import { DateRange } from '../ui/date-range';
import { showInstant } from '../ui/format';
import { CoadaSection, ViewField } from './list';
import type { CoadaQuery } from './query';

/** The filters: plain GET form (works without script), swapped in place by htmx. */
function Filters({ q }: { q: CoadaQuery }) {
  return (
    <form id="filtre" class="filters" method="get" action="/" hx-get="/_fragments/coada" hx-target="#coada" hx-swap="outerMorph">
      <ViewField q={q} />
      <label>
        Nr. înmatriculare sau VIN
        <input type="search" name="cauta" value={q.cauta ?? ''} maxlength={40} placeholder="ex. B123ABC" />
      </label>
      <DateRange from={q.de_la} to={q.pana_la} />
      <button type="submit">Caută</button>
      <a href="/">Șterge filtrele</a>
    </form>
  );
}

/** Trimiteri (the home page until the import screen arrives): filters, the polled list, the detail panel. */
export function CoadaPage(props: {
  user: SessionUser;
  csrfToken: string;
  q: CoadaQuery;
  counts: Record<SubmissionStatus, number>;
  page: SubmissionPage;
  now: Date;
  invalidQuery: boolean;
  alerts?: AccountAlerts;
}) {
  return (
    <Layout title="Trimiteri" tab="trimiteri" user={props.user} csrfToken={props.csrfToken} alerts={props.alerts} skipTo={{ id: 'coada', label: 'Sari la lista trimiterilor' }}>
      <div class="split">
        <div class="main-col">
          <h1>Trimiteri</h1>
          {props.invalidQuery ? <Notice kind="error" cod="CERERE_INVALIDA" cauza="Filtrele din adresă nu sunt valide; se arată vederea implicită." /> : null}
          <Filters q={props.q} />
          <p class="updated" aria-live="off">
            Actualizat la <time id="actualizat">{showInstant(props.now).slice(11)}</time> · se reîmprospătează automat
          </p>
          <CoadaSection q={props.q} counts={props.counts} page={props.page} />
        </div>
        <aside id="panou" aria-live="polite"></aside>
      </div>
    </Layout>
  );
}
