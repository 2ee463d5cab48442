import { sql } from 'drizzle-orm';
import type { Actor, AppContext } from '../../context';
import type { SubmissionStatus } from '../../domain/statuses';

/** A vehicle's records at most on its page: a car serviced weekly for years has fewer. */
export const MAX_VEHICLE_RECORDS = 1000;

/** The longest VIN the page looks up: a record held for a bad VIN keeps what the file had, and its link must open too. */
export const MAX_VIN_CHARS = 64;

export interface VehicleRecord {
  id: number;
  status: SubmissionStatus;
  dataPrestatie: string;
  nrInm: string;
  odometruInitial: number | null;
  odometruFinal: number | null;
  /** Registry codes as classified (with the workshop's own where it has one). */
  prestatii: Array<{ cod_prestatie?: string; denumire?: string; cod_client?: string }>;
  registryId: string | null;
  sentAt: Date | null;
  batchId: number | null;
  /** Its odometer is below one recorded on or before its date (a reading that goes down). */
  goesDown: boolean;
  /** The highest reading before it, when it goes down. */
  highestBefore: number | null;
}

export interface VehicleHistory {
  vin: string;
  records: VehicleRecord[];
  /** More records than MAX_VEHICLE_RECORDS: the oldest are shown. */
  truncated: boolean;
}

const odometer = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : null;
};

/** A VIN as the page is addressed by it: upper case, no spaces. Records store it canonical (upper case). */
export function vinOfPath(raw: string): string {
  return raw.replace(/\s+/g, '').toUpperCase().slice(0, MAX_VIN_CHARS);
}

/**
 * Every record of the account for the VIN, in date order (then as stored), whatever its state:
 * reported, sent, held for data or mapping. Scoped in the query by the account, so another
 * account's VIN reads as one never seen. One index range (submissions_account_vin_idx).
 */
export async function vehicleHistory({ ctx, actor, vin }: { ctx: AppContext; actor: Actor; vin: string }): Promise<VehicleHistory> {
  const rows = await ctx.db.execute<{
    id: number;
    status: SubmissionStatus;
    data_prestatie: string;
    nr_inm: string;
    odometru_initial: unknown;
    odometru_final: unknown;
    prestatii: unknown;
    registry_id: string | null;
    sent_at: string | Date | null;
    batch_id: number | null;
  }>(sql`
    SELECT id, status, data_prestatie, nr_inm, payload_json->'odometruInitial' AS odometru_initial,
           payload_json->'odometruFinal' AS odometru_final, prestatii, registry_id, sent_at, batch_id
      FROM submissions
     WHERE scope_account_id = ${actor.accountId} AND vin = ${vin}
     ORDER BY data_prestatie, id
     LIMIT ${MAX_VEHICLE_RECORDS + 1}`);
  let highest: number | null = null;
  const records = rows.slice(0, MAX_VEHICLE_RECORDS).map((r): VehicleRecord => {
    const km = odometer(r.odometru_final);
    const goesDown = km !== null && highest !== null && km < highest;
    const record: VehicleRecord = {
      id: Number(r.id),
      status: r.status,
      dataPrestatie: r.data_prestatie,
      nrInm: r.nr_inm,
      odometruInitial: odometer(r.odometru_initial),
      odometruFinal: km,
      prestatii: Array.isArray(r.prestatii) ? (r.prestatii as VehicleRecord['prestatii']) : [],
      registryId: r.registry_id,
      sentAt: r.sent_at === null ? null : new Date(r.sent_at),
      batchId: r.batch_id,
      goesDown,
      highestBefore: goesDown ? highest : null,
    };
    if (km !== null && (highest === null || km > highest)) highest = km;
    return record;
  });
  return { vin, records, truncated: rows.length > MAX_VEHICLE_RECORDS };
}
