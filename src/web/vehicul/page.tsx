import type { AccountAlerts } from '../../services/accounts/alerts';
import type { SessionUser } from '../../services/users/sessions';
import { MAX_VEHICLE_RECORDS, type VehicleHistory, type VehicleRecord } from '../../services/vehicles/history';
import { Layout } from '../layout';
import { countOf, showDate, showInstant } from '../ui/format';
import { StatusChip } from '../ui/status-chip';
import { chartPoints, OdometerChart, OdometerTable, showKm } from './chart';

/** A vehicle's page address: the VIN as it is stored, escaped for a path. */
export const vehicleHref = (vin: string) => `/vehicul/${encodeURIComponent(vin)}`;

/** A VIN that opens its vehicle's page: where a clerk meets one (the list, a panel, a preview row). */
export function VinLink({ vin }: { vin: string }) {
  if (vin.trim() === '') return null;
  return (
    <a class="mono vin-link" href={vehicleHref(vin)} title="Istoricul vehiculului">
      {vin}
    </a>
  );
}

const km = (n: number | null) => (n === null ? '—' : showKm(n));

function Odometer({ r }: { r: VehicleRecord }) {
  return (
    <>
      {r.odometruInitial !== null && r.odometruInitial !== r.odometruFinal ? `${km(r.odometruInitial)} → ` : ''}
      <span class={r.goesDown ? 'odo-went-down' : undefined}>{km(r.odometruFinal)}</span>
      {r.goesDown ? (
        <strong class="down-mark">
          <span aria-hidden="true">▼ </span>scade: sub {km(r.highestBefore)} înregistrați înainte
        </strong>
      ) : null}
    </>
  );
}

function Operations({ r }: { r: VehicleRecord }) {
  if (r.prestatii.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="plain">
      {r.prestatii.map((p) => (
        <li>
          <span class="mono">{p.cod_prestatie ?? p.cod_client ?? '?'}</span>
          {p.denumire ? ` ${p.denumire}` : ''}
        </li>
      ))}
    </ul>
  );
}

function Records({ records }: { records: readonly VehicleRecord[] }) {
  return (
    <table class="list stacked vehicle-records">
      <caption class="visually-hidden">Prestațiile vehiculului, în ordinea datei</caption>
      <thead>
        <tr>
          <th scope="col">Data</th>
          <th scope="col">Nr. înmatriculare</th>
          <th scope="col">Kilometraj</th>
          <th scope="col">Operații</th>
          <th scope="col">Stare</th>
          <th scope="col">ID registru</th>
          <th scope="col">Trimiterea</th>
        </tr>
      </thead>
      <tbody>
        {records.map((r) => (
          <tr class={r.goesDown ? 'went-down' : undefined}>
            <td data-label="Data">{showDate(r.dataPrestatie)}</td>
            <td data-label="Nr. înmatriculare" class="mono">
              {r.nrInm || '—'}
            </td>
            <td data-label="Kilometraj">
              <Odometer r={r} />
            </td>
            <td data-label="Operații">
              <Operations r={r} />
            </td>
            <td data-label="Stare">
              <StatusChip status={r.status} />
            </td>
            <td data-label="ID registru" class="mono">
              {r.registryId ?? <span class="muted">—</span>}
              {r.sentAt ? <span class="muted small"> ({showInstant(r.sentAt).slice(0, 16)})</span> : null}
            </td>
            <td data-label="Trimiterea">
              <a href={`/trimiteri/${r.id}`}>#{r.id}</a>
              {r.batchId !== null ? (
                <>
                  {' '}
                  <a class="small" href={`/import/${r.batchId}`}>
                    importul {r.batchId}
                  </a>
                </>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Summary({ history }: { history: VehicleHistory }) {
  const { records } = history;
  const plates = [...new Set(records.map((r) => r.nrInm).filter((p) => p !== ''))];
  const down = records.filter((r) => r.goesDown).length;
  const sent = records.filter((r) => r.status === 'sent').length;
  const last = [...records].reverse().find((r) => r.odometruFinal !== null);
  return (
    <>
      <p class="muted">
        {countOf(records.length, 'o prestație', 'prestații')} în contul dumneavoastră ({countOf(sent, 'una trimisă', 'trimise')} registrului), între{' '}
        {showDate(records[0]!.dataPrestatie)} și {showDate(records.at(-1)!.dataPrestatie)}
        {plates.length > 0 ? ` · nr. ${plates.join(', ')}` : ''}
        {last ? ` · ultimul kilometraj ${km(last.odometruFinal)}` : ''}.
      </p>
      {down > 0 ? (
        <p class="notice warn" role="note">
          <strong>Kilometrajul scade {down === 1 ? 'o dată' : `de ${down} ori`}</strong>: {down === 1 ? 'prestația marcată are' : 'prestațiile marcate au'} un kilometraj mai mic
          decât unul înregistrat înainte (▼ în grafic și în listă). Verificați-{down === 1 ? 'o' : 'le'} înainte de trimitere.
        </p>
      ) : null}
      {history.truncated ? (
        <p class="muted small">Se arată primele {MAX_VEHICLE_RECORDS.toLocaleString('ro-RO')} de prestații, în ordinea datei; celelalte sunt în Trimiteri, căutând VIN-ul.</p>
      ) : null}
    </>
  );
}

export function VehiclePage({ user, csrfToken, alerts, history }: { user: SessionUser; csrfToken: string; alerts?: AccountAlerts; history: VehicleHistory }) {
  const points = chartPoints(history.records);
  const known = history.records.length > 0;
  return (
    <Layout title={`Vehiculul ${history.vin}`} tab="trimiteri" user={user} csrfToken={csrfToken} alerts={alerts}>
      <p class="crumbs">
        <a href="/">« Importuri și trimiteri</a>
      </p>
      <h1 class="vehicle-title">
        Vehiculul <span class="mono">{history.vin}</span>
      </h1>
      {known ? (
        <>
          <Summary history={history} />
          {points.length > 0 ? (
            <figure class="odo">
              <figcaption id="grafic-titlu">
                Kilometrajul la fiecare prestație{points.length < history.records.length ? ' (cele cu kilometraj)' : ''}
                <span class="legend muted small">
                  <span aria-hidden="true">● </span>citire <span aria-hidden="true">▼ </span>scade față de o citire anterioară
                </span>
              </figcaption>
              {/* On a phone the chart keeps a readable size and scrolls in its own box, never the page. */}
              <section class="odo-scroll" tabindex={0} aria-label="Graficul kilometrajului; pe un ecran îngust se derulează lateral">
                <OdometerChart points={points} labelledBy="grafic-titlu" />
              </section>
              <OdometerTable points={points} id="grafic-valori" />
            </figure>
          ) : null}
          <h2>Prestațiile</h2>
          <Records records={history.records} />
        </>
      ) : (
        <p>
          Nu există nicio prestație pentru acest VIN în contul dumneavoastră. Căutați-l în{' '}
          <a href={`/?vedere=toate&cauta=${encodeURIComponent(history.vin.slice(0, 40))}`}>Trimiteri</a> dacă l-ați scris altfel.
        </p>
      )}
    </Layout>
  );
}
