import type { CellValue } from '../../domain/import-cells';
import type { ResolutionContext } from '../../domain/resolve';
import { copyFields, rowFacts } from './facts';
import { vinHasher } from './readings';
import { classifyCells, type RowSetting } from './rows';

/** What every row of a staging is derived with. */
export interface ChunkContext {
  batchId: number;
  /** As COPY writes it (ISO). */
  purgeAfter: string;
  setting: RowSetting;
  resolution: ResolutionContext;
  now: Date;
  /** The batch's key for the VIN's HMAC (readings.ts). */
  vinKey: Uint8Array;
}

/** A row to stage: its index in the batch, its sheet as COPY text, its cells. */
export type ChunkRow = [rowIndex: number, sheet: string, cells: readonly CellValue[]];

/** A chunk staged: the COPY lines of its rows, and the VINs they name (the readings and sent records are looked up by them). */
export interface StagedChunk {
  copy: string;
  vins: string[];
}

/**
 * Each row of a chunk through the API's own path (classifyCells) into its COPY line, with its
 * non-personal facts (facts.ts), so a staged row and an API post of the same content agree.
 */
export function createChunkStager(context: ChunkContext): (rows: readonly ChunkRow[]) => StagedChunk {
  const { batchId, purgeAfter, setting, resolution, now } = context;
  const vinHmac = vinHasher(context.vinKey);
  return (rows) => {
    const lines = new Array<string>(rows.length);
    const vins: string[] = [];
    for (let i = 0; i < rows.length; i++) {
      const [rowIndex, sheet, cells] = rows[i]!;
      const derived = classifyCells(cells, {}, setting, resolution, now);
      if (derived.verdict.content.vin) vins.push(derived.verdict.content.vin);
      lines[i] = `${batchId}\t${rowIndex}\t${sheet}\t${purgeAfter}\t${copyFields(rowFacts(rowIndex, derived, vinHmac))}\n`;
    }
    return { copy: lines.join(''), vins };
  };
}
