import { AppError } from '../../errors';
import type { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import type postgres from 'postgres';
import type { Executor } from '../../../db/client';
import { importBatches } from '../../../db/schema';
import type { AppContext, Actor } from '../../context';
import { isBlank, type CellValue } from '../../domain/import-cells';
import { classifyLeadingRow, headerCells, headerSignature } from '../../domain/import-header';
import { preferRegistryCodes, SAMPLE_ROWS } from '../../domain/registry-code-column';
import { openSpreadsheet } from '../../import/open';
import type { SheetInfo, SheetRow, Spreadsheet } from '../../import/types';
import { loadResolutionContext } from '../operations/context';
import { importPurgeAfter, type FileMeta } from './batch';
import { copyFields, copyText, FACT_COLUMNS, rowFacts } from './facts';
import { fingerprint } from './fingerprint';
import { importLimits } from './limits';
import { initialMappingState } from './mapping-store';
import { createBlockSealer, insertBlocks } from './raw-blocks';
import { applyReadings, newVinKey, readingsForVins, readingsWatermark, vinHasher } from './readings';
import { classifyCells, type RowSetting } from './rows';
import { linkVinSubmissions, submissionsForVins } from './sent-records';
import { batchView } from './view';

/**
 * Lines to the COPY stream, gathered into ~64 KB writes (a write per row costs a syscall each),
 * waiting only when Postgres is behind: parsing and storing overlap.
 */
function copyWriter(stream: Writable) {
  let pending: string[] = [];
  let size = 0;
  const flush = async () => {
    if (pending.length === 0) return;
    const chunk = pending.join('');
    pending = [];
    size = 0;
    if (!stream.write(chunk)) await new Promise((resolve) => stream.once('drain', resolve));
  };
  return {
    async line(text: string) {
      pending.push(text);
      size += text.length;
      if (size >= 65_536) await flush();
    },
    async finish() {
      await flush();
      await new Promise<void>((resolve, reject) => {
        stream.once('finish', resolve);
        stream.once('error', reject);
        stream.end();
      });
    },
    destroy: () => stream.destroy(),
  };
}
type CopyWriter = ReturnType<typeof copyWriter>;

export interface SheetSummary {
  name: string;
  hidden: boolean;
  /** Non-blank data rows (below the header). */
  rows: number;
  header_line: number | null;
  staged: boolean;
  motiv: string | null;
}

interface Staging {
  purgeAfter: Date;
  batchId: number | null;
  copy: CopyWriter | null;
  blocks: ReturnType<typeof createBlockSealer>;
  header: string[];
  signature: string;
  staged: number;
  /** A row's derived columns as COPY fields (set once the header, hence the mapping, is known). */
  derive: (rowIndex: number, cells: readonly CellValue[]) => string;
}

/**
 * Which sheets a walk stages. Chosen by name: exactly those, and they must share a header.
 * By default: the first visible sheet with a header, and every later visible sheet whose
 * header is the same (a workbook with one sheet per month).
 */
function wantsSheet(sheet: SheetInfo, chosen: readonly string[], staging: Staging, signature: string): { stage: boolean; motiv: string | null } {
  const explicit = chosen.length > 0;
  if (explicit && !chosen.includes(sheet.name)) return { stage: false, motiv: 'Foaia nu a fost aleasă.' };
  if (staging.batchId !== null && signature !== staging.signature) {
    if (explicit) throw new AppError('IMPORT_FOAIE', `Foaia „${sheet.name}” are alt antet decât prima foaie aleasă.`);
    return { stage: false, motiv: 'Antetul diferă de cel al primei foi importate.' };
  }
  if (!explicit && sheet.hidden) return { stage: false, motiv: 'Foaie ascunsă; alegeți-o explicit pentru a o importa.' };
  return { stage: true, motiv: null };
}

async function walkSheet(
  ctx: AppContext,
  source: Spreadsheet,
  sheet: SheetInfo,
  chosen: readonly string[],
  staging: Staging,
  create: (header: string[], signature: string, sample: ReadonlyArray<readonly CellValue[]>) => Promise<CopyWriter>,
) {
  const limits = importLimits(ctx.config);
  const summary: SheetSummary = { name: sheet.name, hidden: sheet.hidden, rows: 0, header_line: null, staged: false, motiv: null };
  let reading: 'leading' | 'no_header' | 'rows' = 'leading';
  const purgeAfter = staging.purgeAfter.toISOString();
  const sheetName = copyText(sheet.name);
  let pendingHeader: { header: string[]; signature: string } | null = null;
  const sample: SheetRow[] = [];

  for await (const row of source.rows(sheet.name)) {
    if (row.cells.every(isBlank)) continue;
    if (reading === 'leading') {
      const kind = classifyLeadingRow(row.cells);
      if (kind === 'title') continue;
      if (kind === 'data') {
        reading = 'no_header';
        summary.motiv = 'Foaia nu are rând de antet.';
        if (chosen.includes(sheet.name))
          throw new AppError('IMPORT_FARA_ANTET', `Primul rând completat al foii „${sheet.name}” (linia ${row.line}) conține date, nu nume de coloane.`);
        summary.rows += 1;
        continue;
      }
      const header = headerCells(row.cells);
      const signature = headerSignature(header);
      const decision = wantsSheet(sheet, chosen, staging, signature);
      summary.header_line = row.line;
      summary.staged = decision.stage;
      summary.motiv = decision.motiv;
      if (decision.stage && staging.copy === null) pendingHeader = { header, signature };
      reading = 'rows';
      continue;
    }
    summary.rows += 1;
    if (!summary.staged) continue;
    if (pendingHeader) {
      // The batch's mapping is judged on the first rows' values too, so they wait for it.
      sample.push(row);
      if (sample.length >= SAMPLE_ROWS) await startStaging();
      continue;
    }
    await stage(row);
  }
  if (pendingHeader) await startStaging();
  return summary;

  async function startStaging() {
    const { header, signature } = pendingHeader!;
    pendingHeader = null;
    staging.copy = await create(
      header,
      signature,
      sample.map((r) => r.cells),
    );
    for (const buffered of sample.splice(0)) await stage(buffered);
  }
  async function stage(row: SheetRow) {
    if (staging.copy === null || staging.batchId === null) return;
    staging.staged += 1;
    if (staging.staged > limits.maxRows) {
      throw new AppError('IMPORT_PREA_MULTE_RANDURI', `Fișierul are peste ${limits.maxRows} rânduri de date (limita).`);
    }
    staging.blocks.add(row.line, row.cells);
    const derived = staging.derive(staging.staged, row.cells);
    await staging.copy.line(`${staging.batchId}\t${staging.staged}\t${sheetName}\t${purgeAfter}\t${derived}\n`);
  }
}

function nothingStaged(sheets: SheetSummary[], staging: Staging): AppError {
  if (staging.batchId !== null) return new AppError('IMPORT_FISIER_GOL', 'Fișierul are antet, dar niciun rând de date sub el.');
  if (sheets.some((s) => s.rows > 0 && s.header_line === null)) {
    return new AppError('IMPORT_FARA_ANTET', 'Primul rând completat conține date, nu nume de coloane.');
  }
  return new AppError('IMPORT_FISIER_GOL', 'Fișierul nu conține niciun rând completat.');
}

/**
 * Stages every row of the chosen sheet(s) in one transaction with the batch: a file is staged
 * whole or not at all. Rows go from the reading stream straight into a COPY, so parsing
 * overlaps with Postgres writing; their raw cells are kept encrypted in blocks (raw-blocks.ts,
 * written after the COPY). Each row is classified in the same pass, while its plaintext is at
 * hand, and its non-personal facts (services/import/facts.ts) are stored in its row: the
 * preview never decrypts the batch.
 */
export async function createImportBatch({
  ctx,
  actor,
  filename,
  bytes,
  sheets: chosen,
}: {
  ctx: AppContext;
  actor: Actor;
  filename: string | null;
  bytes: Buffer;
  sheets: string[];
}) {
  const source = await openSpreadsheet(bytes, importLimits(ctx.config));
  const unknown = chosen.filter((name) => !source.sheets.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new AppError('IMPORT_FOAIE', `O foaie aleasă în câmpul sheet nu există în fișier; foile fișierului: ${source.sheets.map((s) => s.name).join(', ')}.`);
  }
  const fileMeta: FileMeta = { kind: source.kind, encoding: source.encoding ?? null, delimiter: source.delimiter ?? null, date1904: source.date1904, size: bytes.length };
  const now = ctx.clock();
  const accountId = actor.accountId;

  const batchId = await ctx.db.transaction(async (exec) => {
    const resolution = await loadResolutionContext(ctx, exec, accountId, 'all');
    const vinKey = newVinKey(ctx.keyring);
    const vinHmac = vinHasher(vinKey.key);
    // The batch's distinct VINs, for one lookup of the odometer readings already recorded.
    const vins = new Set<string>();
    let setting: RowSetting | null = null;
    const derive = (rowIndex: number, cells: readonly CellValue[]) => {
      const derived = classifyCells(cells, {}, setting!, resolution, now);
      if (derived.verdict.content.vin) vins.add(derived.verdict.content.vin);
      return copyFields(rowFacts(rowIndex, derived, vinHmac));
    };
    const staging: Staging = { purgeAfter: importPurgeAfter(now), batchId: null, copy: null, blocks: createBlockSealer(ctx.keyring), header: [], signature: '', staged: 0, derive };
    const create = async (header: string[], signature: string, sample: ReadonlyArray<readonly CellValue[]>) => {
      let mappingState = await initialMappingState(exec, accountId, header, signature);
      if (mappingState.source === 'suggested') {
        const judged = preferRegistryCodes(header, mappingState.mapping, sample, (code) => resolution.nomenclator.has(code.toUpperCase()));
        if (judged.observatii.length > 0) mappingState = { ...mappingState, mapping: judged.mapping, observatii: judged.observatii };
      }
      setting = { accountId, mapping: mappingState.mapping, date1904: fileMeta.date1904 };
      const [row] = await exec
        .insert(importBatches)
        .values({
          accountId,
          filename,
          header,
          headerSignature: signature,
          fileMeta,
          columnMapping: mappingState,
          vinKeyEnc: vinKey.stored,
          purgeAfter: staging.purgeAfter,
          createdAt: now,
        })
        .returning({ id: importBatches.id });
      Object.assign(staging, { batchId: row!.id, header, signature });
      return copyWriter(
        await copyConnection(exec)
          .unsafe(`COPY import_rows (batch_id, row_index, sheet, purge_after, ${FACT_COLUMNS.join(', ')}) FROM STDIN`)
          .writable(),
      );
    };
    const summaries: SheetSummary[] = [];
    try {
      for (const sheet of source.sheets) summaries.push(await walkSheet(ctx, source, sheet, chosen, staging, create));
    } catch (error) {
      staging.copy?.destroy();
      throw error;
    }
    if (staging.copy) await staging.copy.finish();
    if (staging.batchId === null || staging.staged === 0) throw nothingStaged(summaries, staging);
    await insertBlocks(exec, staging.batchId, staging.purgeAfter, staging.blocks.finish());

    const watermark = await readingsWatermark(exec, accountId);
    await applyReadings(exec, vinHmac, staging.batchId, await readingsForVins(exec, accountId, [...vins]));
    await linkVinSubmissions(exec, vinHmac, staging.batchId, await submissionsForVins(exec, accountId, [...vins]));
    const derivedFp = fingerprint(setting!, resolution, now, watermark);
    await exec.update(importBatches).set({ rowCount: staging.staged, sheets: summaries, derivedFp }).where(eq(importBatches.id, staging.batchId));
    return staging.batchId;
  });
  return batchView(ctx, batchId, accountId);
}

/**
 * drizzle has no COPY, and a row-by-row insert would dominate the upload: the postgres.js
 * connection under the drizzle transaction streams it, inside that same transaction.
 */
function copyConnection(exec: Executor): postgres.TransactionSql {
  const client = (exec as unknown as { session?: { client?: postgres.TransactionSql } }).session?.client;
  if (typeof client?.unsafe !== 'function') throw new Error('drizzle transaction without a postgres.js connection');
  return client;
}
