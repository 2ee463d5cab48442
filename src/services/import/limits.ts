import type { Config } from '../../config';
import type { ImportLimits } from '../../readers/types';

/** Columns past this are refused: no service export needs them, and each would be staged for every row. */
export const MAX_COLUMNS = 256;

export function importLimits(config: Pick<Config, 'GATEWAY_IMPORT_MAX_ROWS' | 'GATEWAY_IMPORT_MAX_UNCOMPRESSED_BYTES'>): ImportLimits {
  return {
    maxRows: config.GATEWAY_IMPORT_MAX_ROWS,
    maxUncompressedBytes: config.GATEWAY_IMPORT_MAX_UNCOMPRESSED_BYTES,
    maxColumns: MAX_COLUMNS,
  };
}
