import { isIsoDate } from './dates';
import { cellText, isBlank, parseDateCell, parseOdometerCell, parsePlateCell, parseVinCell, type CellValue } from './import-cells';
import type { FieldValues } from './import-row';

// Workshop exports carry lines that are no service: a TOTAL line, a note, the header printed
// again where two exports were pasted together, an empty line with a stray cell. Sent, each
// would be a false record in the registry; staged as needs_data, each sat in "De rezolvat".
// Such a line is left out, with its reason, and shown as left out.

const TOTAL = /(^|[^\p{L}])(sub)?total(uri)?([^\p{L}]|$)/iu;
const VEHICLE_FIELDS = ['vin', 'nrInm', 'dataPrestatie', 'odometruFinal'] as const;

/** Whether a cell holds a value of its field's kind (a VIN-like text, a plate, a date, a number), right or wrong. */
function looksLikeVehicle(values: FieldValues, date1904: boolean): boolean {
  const vin = parseVinCell(values.vin);
  if (vin.length >= 11 && /\d/.test(vin) && /^[A-Za-z0-9]+$/.test(vin)) return true;
  const plate = parsePlateCell(values.nrInm);
  if (/^[A-Za-z0-9]{2,10}$/.test(plate) && /\d/.test(plate)) return true;
  if (!isBlank(values.dataPrestatie) && isIsoDate(parseDateCell(values.dataPrestatie, date1904))) return true;
  const odometer = parseOdometerCell(values.odometruFinal);
  return typeof odometer === 'number' || (typeof odometer === 'string' && /^\d+(\.\d+)?$/.test(odometer));
}

const same = (a: CellValue | undefined, b: string | undefined) => b !== undefined && cellText(a).toLowerCase() === b.trim().toLowerCase() && b.trim() !== '';

/**
 * Why a file line is no service, or null when it may be one. A line with a vehicle field of its
 * kind is always a service (a wrong VIN is a needs_data row the clerk corrects), and so is a line
 * that names an operation without a vehicle (its VIN is to be filled in, not lost).
 */
export function nonServiceReason(
  cells: readonly CellValue[],
  values: FieldValues,
  header: readonly string[],
  mapping: Partial<Record<string, number>>,
  date1904: boolean,
): string | null {
  if (looksLikeVehicle(values, date1904)) return null;
  const repeated = Object.values(mapping).filter((column) => column !== undefined && same(cells[column], header[column])).length;
  if (repeated >= 2) return 'Capul de tabel, repetat în fișier.';
  if (cells.some((cell) => typeof cell === 'string' && TOTAL.test(cell))) return 'Rând de total, nu o prestație.';
  const names = !isBlank(values.cod_op_service) || !isBlank(values.cod_prestatie);
  if (names) return null;
  const vehicleBlank = VEHICLE_FIELDS.every((field) => isBlank(values[field]));
  return vehicleBlank
    ? 'Rând fără vehicul (fără VIN, număr, dată sau kilometraj): o notă sau un rând gol.'
    : 'Notă, nu o prestație: niciun câmp al vehiculului nu are o valoare de felul lui.';
}
