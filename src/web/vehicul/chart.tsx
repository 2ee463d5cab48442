import type { VehicleRecord } from '../../services/vehicles/history';
import { showDate } from '../ui/format';

// The odometer over time, drawn on the server as SVG: it reads the same without JavaScript,
// prints, and scales with its box. A reading that goes down is a red triangle pointing down,
// not only a colour. Screen readers get the table beside it (OdometerTable), not the drawing.

const W = 720;
const H = 260;
const LEFT = 78;
const RIGHT = 16;
const TOP = 16;
const BOTTOM = 36;
const DAY_MS = 86_400_000;

// One formatter for the page: toLocaleString builds one per call, and a page of 200 services
// formats a thousand numbers.
const thousands = new Intl.NumberFormat('ro-RO');
export const showKm = (n: number) => `${thousands.format(n)} km`;
const km = showKm;

/** Round steps for the km axis: 1, 2 or 5 times a power of ten, about four of them. */
function ticks(min: number, max: number): number[] {
  const span = Math.max(max - min, 1);
  const raw = span / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max; v += step) out.push(v);
  return out;
}

export interface ChartPoint {
  record: VehicleRecord;
  km: number;
}

export function chartPoints(records: readonly VehicleRecord[]): ChartPoint[] {
  return records.flatMap((record) => (record.odometruFinal === null ? [] : [{ record, km: record.odometruFinal }]));
}

export function OdometerChart({ points, labelledBy }: { points: readonly ChartPoint[]; labelledBy: string }) {
  const times = points.map((p) => Date.parse(`${p.record.dataPrestatie}T00:00:00Z`)).map((t) => (Number.isFinite(t) ? t : 0));
  const t0 = Math.min(...times);
  const t1 = Math.max(...times);
  const kms = points.map((p) => p.km);
  const low = Math.min(...kms);
  const high = Math.max(...kms);
  // Some room under the lowest reading; a single reading sits in the middle.
  const pad = Math.max((high - low) * 0.08, 500);
  const y0 = Math.max(0, low - pad);
  const y1 = high + pad;
  const x = (t: number) => (t1 === t0 ? LEFT + (W - LEFT - RIGHT) / 2 : LEFT + ((t - t0) / (t1 - t0)) * (W - LEFT - RIGHT));
  const y = (v: number) => TOP + (1 - (v - y0) / (y1 - y0)) * (H - TOP - BOTTOM);
  const xy = points.map((p, i) => ({ p, cx: x(times[i]!), cy: y(p.km) }));
  const path = xy.map(({ cx, cy }, i) => `${i === 0 ? 'M' : 'L'}${cx.toFixed(1)} ${cy.toFixed(1)}`).join(' ');
  const first = showDate(points[0]!.record.dataPrestatie);
  const last = showDate(points.at(-1)!.record.dataPrestatie);
  const downs = points.filter((p) => p.record.goesDown).length;
  const middle = t1 - t0 > 60 * DAY_MS ? new Date((t0 + t1) / 2).toISOString().slice(0, 10) : null;
  return (
    <svg class="odo-chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={labelledBy} preserveAspectRatio="xMidYMid meet" focusable="false">
      <title>{`Grafic: de la ${km(points[0]!.km)} (${first}) la ${km(points.at(-1)!.km)} (${last})${downs === 1 ? '; scade o dată' : downs > 1 ? `; scade de ${downs} ori` : ''}. Valorile sunt în tabelul de după grafic.`}</title>
      {ticks(y0, y1).map((v) => (
        <g class="tick">
          <line x1={LEFT} x2={W - RIGHT} y1={y(v).toFixed(1)} y2={y(v).toFixed(1)} />
          <text x={LEFT - 6} y={(y(v) + 4).toFixed(1)} text-anchor="end">
            {thousands.format(v)}
          </text>
        </g>
      ))}
      <text class="axis-label" x={4} y={TOP + 4}>
        km
      </text>
      <text class="axis-label" x={LEFT} y={H - 10}>
        {first}
      </text>
      {middle ? (
        <text class="axis-label" x={x(Date.parse(`${middle}T00:00:00Z`)).toFixed(1)} y={H - 10} text-anchor="middle">
          {showDate(middle)}
        </text>
      ) : null}
      {t1 !== t0 ? (
        <text class="axis-label" x={W - RIGHT} y={H - 10} text-anchor="end">
          {last}
        </text>
      ) : null}
      <path class="odo-line" d={path} />
      {xy.map(({ p, cx, cy }) =>
        p.record.goesDown ? (
          <path class="odo-down" d={`M${(cx - 7).toFixed(1)} ${(cy - 6).toFixed(1)} L${(cx + 7).toFixed(1)} ${(cy - 6).toFixed(1)} L${cx.toFixed(1)} ${(cy + 7).toFixed(1)} Z`}>
            <title>{`${showDate(p.record.dataPrestatie)}: ${km(p.km)} — scade sub ${km(p.record.highestBefore ?? 0)}`}</title>
          </path>
        ) : (
          <circle class="odo-point" cx={cx.toFixed(1)} cy={cy.toFixed(1)} r="4.5">
            <title>{`${showDate(p.record.dataPrestatie)}: ${km(p.km)}`}</title>
          </circle>
        ),
      )}
    </svg>
  );
}

/** The chart's values as a table, for screen readers (visually hidden: the list below shows them to everyone). */
export function OdometerTable({ points, id }: { points: readonly ChartPoint[]; id: string }) {
  return (
    // In a hidden box: a table is never narrower than its text, whatever width it is given.
    <div class="visually-hidden">
      <table id={id}>
        <caption>Kilometrajul vehiculului, pe date</caption>
        <thead>
          <tr>
            <th scope="col">Data</th>
            <th scope="col">Kilometraj</th>
            <th scope="col">Observație</th>
          </tr>
        </thead>
        <tbody>
          {points.map((p) => (
            <tr>
              <td>{showDate(p.record.dataPrestatie)}</td>
              <td>{km(p.km)}</td>
              <td>{p.record.goesDown ? `Scade: sub ${km(p.record.highestBefore ?? 0)} înregistrați înainte` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
