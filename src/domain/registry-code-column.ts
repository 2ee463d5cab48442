import { splitCodes, type CellValue } from './import-cells';
import type { ColumnMapping } from './import-header';

/** Rows read ahead of staging to judge a column by its values. */
export const SAMPLE_ROWS = 50;
/** The share of a column's codes that must be registry codes for it to be read as such. */
const REGISTRY_SHARE = 0.8;

export interface RegistryColumnJudgement {
  mapping: ColumnMapping;
  /** What was decided from the values, in Romanian, for the batch's answer. */
  observatii: string[];
}

/** Of the codes in `column` over the sample, the share the nomenclator knows (null when it holds none). */
function registryShare(column: number, sample: ReadonlyArray<readonly CellValue[]>, isRegistryCode: (code: string) => boolean): number | null {
  let codes = 0;
  let known = 0;
  for (const cells of sample) {
    for (const code of splitCodes(cells[column])) {
      codes += 1;
      if (isRegistryCode(code)) known += 1;
    }
  }
  return codes === 0 ? null : known / codes;
}

/**
 * A column suggested as the workshop's codes (or left unmapped) whose values are mostly the
 * registry's own codes is read as `cod_prestatie` instead: otherwise every row would wait for
 * a mapping of codes the registry already understands. Names alone cannot tell the two apart
 * ("Cod operație" holds either), the values can.
 */
export function preferRegistryCodes(
  header: readonly string[],
  mapping: ColumnMapping,
  sample: ReadonlyArray<readonly CellValue[]>,
  isRegistryCode: (code: string) => boolean,
): RegistryColumnJudgement {
  if (mapping.cod_prestatie !== undefined || sample.length === 0) return { mapping, observatii: [] };
  const used = new Set(Object.values(mapping));
  const candidates = [...(mapping.cod_op_service !== undefined ? [mapping.cod_op_service] : []), ...header.map((_, i) => i).filter((i) => !used.has(i))];
  for (const column of candidates) {
    const share = registryShare(column, sample, isRegistryCode);
    if (share === null || share < REGISTRY_SHARE) continue;
    const next: ColumnMapping = { ...mapping, cod_prestatie: column };
    if (next.cod_op_service === column) delete next.cod_op_service;
    const name = header[column] || `nr. ${column + 1}`;
    return { mapping: next, observatii: [`Coloana „${name}” conține coduri ale registrului; a fost citită drept cod_prestatie.`] };
  }
  return { mapping, observatii: [] };
}
