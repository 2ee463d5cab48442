import { z } from 'zod';
import type { CanonicalContent } from '../../src/domain/canonical';
import type { RegistryProtocol } from './protocol';

/** A resolved item as the classification stored it in submissions.prestatii. */
export const StoredItem = z.object({ cod_prestatie: z.string().min(1), denumire: z.string() });
export type StoredItem = z.infer<typeof StoredItem>;

/** The record in the protocol's default names; `toWire` renames it for the configured protocol. */
export interface RegistryRecord {
  vin: string;
  nrInmatriculare: string;
  dataPrestatie: string;
  odometruInitial: number | null;
  odometruFinal: number;
  obs: string;
  prestatii: Array<{ codPrestatie: string; numePrestatie: string; idPrezentare: null }>;
  sistemReparat: null;
  status: string;
  b64Image: string;
}

export class RecordError extends Error {}

function odometer(value: number | string | null, field: string): number | null {
  if (value === null) return null;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) throw new RecordError(`${field} is not numeric`);
  return n;
}

/**
 * The record sent to the registry, built from the stored canonical content and the codes
 * resolved at classification: always `FINALIZATA`, never a `tipPrestatie`.
 */
export function buildRecord(content: CanonicalContent, items: readonly StoredItem[], protocol: RegistryProtocol): RegistryRecord {
  const odometruFinal = odometer(content.odometruFinal, 'odometruFinal');
  if (odometruFinal === null) throw new RecordError('odometruFinal is missing');
  if (items.length === 0) throw new RecordError('no resolved prestatii');
  return {
    vin: content.vin,
    nrInmatriculare: content.nrInm,
    dataPrestatie: content.dataPrestatie,
    odometruInitial: odometer(content.odometruInitial, 'odometruInitial'),
    odometruFinal,
    obs: '',
    // Each registry code once: two workshop operations mapped to one code are one operation for the registry.
    prestatii: items
      .filter((item, i) => items.findIndex((other) => other.cod_prestatie === item.cod_prestatie) === i)
      .map((item) => ({ codPrestatie: item.cod_prestatie, numePrestatie: item.denumire, idPrezentare: null })),
    sistemReparat: null,
    status: protocol.finalisedStatus,
    b64Image: content.b64Image,
  };
}

/** The record with the configured protocol's field names. */
export function toWire(record: RegistryRecord, protocol: RegistryProtocol): Record<string, unknown> {
  const f = protocol.record;
  return {
    [f.vin]: record.vin,
    [f.nrInmatriculare]: record.nrInmatriculare,
    [f.dataPrestatie]: record.dataPrestatie,
    [f.odometruInitial]: record.odometruInitial,
    [f.odometruFinal]: record.odometruFinal,
    [f.obs]: record.obs,
    [f.prestatii]: record.prestatii.map((p) => ({
      [f.codPrestatie]: p.codPrestatie,
      [f.numePrestatie]: p.numePrestatie,
      [f.idPrezentare]: p.idPrezentare,
    })),
    [f.sistemReparat]: record.sistemReparat,
    [f.status]: record.status,
    [f.b64Image]: record.b64Image,
  };
}

/** What reconciliation compares: an entry of the registry's finalised list. */
export interface ListedRecord {
  id: string;
  vin: string;
  dataPrestatie: string;
  odometruFinal: number | null;
  codes: string[];
}

function codeSet(codes: readonly string[]): string {
  return [...new Set(codes.map((c) => c.trim().toUpperCase()))].sort().join('|');
}

/** Same VIN, date, final odometer and set of codes: the registry already holds this record. */
export function sameRecord(listed: ListedRecord, record: RegistryRecord): boolean {
  return (
    listed.vin.trim().toUpperCase() === record.vin &&
    listed.dataPrestatie.slice(0, 10) === record.dataPrestatie &&
    listed.odometruFinal === record.odometruFinal &&
    codeSet(listed.codes) === codeSet(record.prestatii.map((p) => p.codPrestatie))
  );
}
