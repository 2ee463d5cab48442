import { promisify } from 'node:util';
import { deflateRaw, inflateRaw } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { importBatches, importUploadPieces, importUploads } from '../../../db/schema';
import { actorLabel, type Actor, type AppContext } from '../../context';
import { AppError } from '../../errors';
import { sniffFile } from '../../readers/detect';
import { importPurgeAfter, loadBatch, type LoadedBatch } from './batch';

/** What a new file in the queue NOTIFYs: the stagers LISTEN to it (stager.ts). */
export const QUEUE_CHANNEL = 'gateway_import_queue';

/** The size of the pieces an uploaded file is kept in (db/schema/imports.ts, import_upload_pieces). */
export const UPLOAD_PIECE_BYTES = 1024 * 1024;

const deflating = promisify(deflateRaw);
const inflating = promisify(inflateRaw);
/** zlib's output in pieces of this size: at its default 16 KB, a 10 MB file's inflation took 650 hand-overs from its thread and twice the time. */
const ZLIB_CHUNK = UPLOAD_PIECE_BYTES;

/**
 * How an uploaded file is kept: deflated unless it is a zip (an xlsx) already. Level 1, on
 * libuv's threads: a 10 MB csv in ~30 ms, to a seventh of its size, which the database then
 * writes and a stager reads back in a seventh of the time (its pieces of text were the slowest
 * part of the upload's answer and of the stager's start).
 */
async function storedForm(bytes: Buffer, kind: string): Promise<{ stored: Buffer; deflated: boolean }> {
  if (kind === 'zip') return { stored: bytes, deflated: false };
  return { stored: await deflating(bytes, { level: 1, chunkSize: ZLIB_CHUNK }), deflated: true };
}

/** An uploaded file's bytes, read back from its pieces (a stager, once it claimed the file); `maxBytes` bounds a deflated one. */
export async function readUploadedFile(ctx: AppContext, batchId: number, file: { deflated: boolean; maxBytes: number }): Promise<Buffer> {
  const pieces = await ctx.db.execute<{ piece_enc: string }>(sql`SELECT piece_enc FROM import_upload_pieces WHERE batch_id = ${batchId} ORDER BY piece`);
  const stored = Buffer.concat(pieces.map((p) => ctx.keyring.decryptBytes(p.piece_enc)));
  return file.deflated ? inflating(stored, { chunkSize: ZLIB_CHUNK, maxOutputLength: file.maxBytes }) : stored;
}

/** The advisory-lock key that orders the deployment's enqueues (its count, then its insert). */
const QUEUE_LOCK = 727_013;

/** Why an upload was not let in: its account has as many files waiting or staging as it may, or this server reads as many bodies, or the deployment has as many files. */
export type UploadRefusal = { refused: 'account' | 'process' | 'deployment'; limit: number };

/** An upload let in before its body is read: its place among the bodies this server reads, until `release`. */
export interface UploadAdmission {
  release(): void;
}

interface UploadLimits {
  /** Files waiting or staging in the deployment, and bodies one server reads at once (GATEWAY_IMPORT_UPLOADS_MAX). */
  uploads: number;
  /** Of those, one account's (GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT). */
  perAccount: number;
  /** Files written into the queue at once by this server (a quarter of its pool, at least one). */
  writes: number;
}

/**
 * The uploads one server is reading: each holds its body (up to GATEWAY_MAX_BODY_BYTES) in
 * memory until it is in the queue, so their count is bounded here, per account and in all.
 */
export function createUploadGate(limits: UploadLimits) {
  const reading = new Map<number, number>();
  let total = 0;
  // Admissions given back so far: a count of the queue taken meanwhile may include one of them.
  let released = 0;
  let writing = 0;
  const waiting: Array<() => void> = [];
  return {
    limits,
    /**
     * Runs a file's write into the queue when one of `limits.writes` places is free: a large
     * file's INSERT holds its pooled connection for seconds, and a storm of them took the whole
     * pool from other accounts' requests. Those waiting are admitted uploads, bounded above.
     */
    async write<T>(work: () => Promise<T>): Promise<T> {
      if (writing < limits.writes) writing += 1;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        // The place goes to the next waiting write, or back.
        const next = waiting.shift();
        if (next) next();
        else writing -= 1;
      }
    },
    /** Bodies read now: this account's, and all; `released` tells whether one was given back since. */
    reading: (accountId: number) => ({ mine: reading.get(accountId) ?? 0, total, released }),
    take(accountId: number): UploadAdmission {
      reading.set(accountId, (reading.get(accountId) ?? 0) + 1);
      total += 1;
      let given = false;
      return {
        release() {
          if (given) return;
          given = true;
          released += 1;
          total -= 1;
          const left = (reading.get(accountId) ?? 1) - 1;
          if (left > 0) reading.set(accountId, left);
          else reading.delete(accountId);
        },
      };
    },
  };
}
export type UploadGate = ReturnType<typeof createUploadGate>;

/** The deployment's files waiting or being staged: the account's, and all. */
async function unstaged(exec: Pick<AppContext['db'], 'execute'>, accountId: number): Promise<{ mine: number; all: number }> {
  const [row] = await exec.execute<{ mine: number; all: number }>(sql`
    SELECT count(*) FILTER (WHERE account_id = ${accountId})::int AS mine, count(*)::int AS "all"
    FROM import_batches WHERE status IN ('queued', 'staging')`);
  return { mine: row?.mine ?? 0, all: row?.all ?? 0 };
}

function judge(limits: UploadLimits, counted: { mine: number; all: number }): UploadRefusal | null {
  if (counted.mine >= limits.perAccount) return { refused: 'account', limit: limits.perAccount };
  if (counted.all >= limits.uploads) return { refused: 'deployment', limit: limits.uploads };
  return null;
}

/**
 * Lets an upload in before its body is read, or says why not (the caller answers 429 / 503 at
 * once, holding nothing): its account's files waiting or staging in the whole deployment, with
 * the bodies this server reads for it, are fewer than GATEWAY_IMPORT_UPLOADS_PER_ACCOUNT, and
 * the deployment's fewer than GATEWAY_IMPORT_UPLOADS_MAX. One short query (again if an upload of
 * this server was queued meanwhile).
 */
export async function admitUpload(ctx: AppContext, accountId: number): Promise<UploadAdmission | UploadRefusal> {
  const { limits } = ctx.uploads;
  for (let count = 1; ; count++) {
    const before = ctx.uploads.reading(accountId);
    if (before.total >= limits.uploads) return { refused: 'process', limit: limits.uploads };
    const counted = await unstaged(ctx.db, accountId);
    // The bodies being read after the count: one read before it that queued its batch and gave
    // its place back meanwhile was in both counts, and refused an upload that fitted. Given back
    // during the count, it may be in neither: counted again (past that, the locked count at
    // the insert has the last word).
    const here = ctx.uploads.reading(accountId);
    if (here.released !== before.released && count < 3) continue;
    const refusal = judge(limits, { mine: counted.mine + here.mine, all: counted.all + here.total });
    return refusal ?? ctx.uploads.take(accountId);
  }
}

/** The catalog's words for a refusal: the API's envelope and the dashboard's notice both say this. */
export function uploadRefusal(refusal: UploadRefusal) {
  if (refusal.refused === 'account')
    return { cod: 'IMPORT_PREA_MULTE_INCARCARI', cauza: `Contul are deja ${refusal.limit} fișiere în așteptare sau în curs de încărcare.` } as const;
  const who = refusal.refused === 'process' ? 'Serverul primește' : 'Gateway-ul are';
  return { cod: 'SERVER_OCUPAT', cauza: `${who} deja ${refusal.limit} fișiere în curs de încărcare.` } as const;
}

/**
 * An admitted upload's file into the queue: its batch, `queued`, and its bytes, encrypted with
 * the service key like every staged row (any stager of the deployment stages it), in one
 * transaction that NOTIFYs the stagers as it commits. Answers at once with the batch; the
 * server never parses, classifies or COPYs the file. Only its first bytes are looked at, so
 * that a file of no spreadsheet type (or empty, or password-protected) is refused now rather
 * than queued. Both the API's and the dashboard's uploads come here.
 */
export async function queueUpload({
  ctx,
  actor,
  filename,
  bytes,
  sheets,
  codePage,
  requestId,
  admission,
}: {
  ctx: AppContext;
  actor: Actor;
  /** Its place among the bodies being read: given back once the batch counts in the queue instead. */
  admission?: UploadAdmission;
  filename: string | null;
  bytes: Buffer;
  sheets: string[];
  /** A .dbf table's code page chosen by the clerk, over its header's. */
  codePage?: number;
  requestId: string;
}): Promise<LoadedBatch> {
  const kind = sniffFile(bytes);
  const { accountId } = actor;
  const now = ctx.clock();
  // The count and the batch's row under one short lock (never the file's write: enqueues
  // waiting for it would hold the pool's connections meanwhile).
  const batchId = await ctx.db.transaction(async (tx) => {
    // Counted again under one lock: two servers that admitted an upload each at the limit
    // cannot both queue it (the second is refused after all, rarely and at once).
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${QUEUE_LOCK}, 0)`);
    const refusal = judge(ctx.uploads.limits, await unstaged(tx, accountId));
    if (refusal) {
      const { cod, cauza } = uploadRefusal(refusal);
      throw new AppError(cod, cauza);
    }
    const [row] = await tx
      .insert(importBatches)
      .values({
        accountId,
        filename,
        // Known once a stager read the file.
        header: [],
        headerSignature: '',
        fileMeta: { kind: kind === 'zip' ? 'xlsx' : kind === 'text' ? 'csv' : kind, encoding: null, delimiter: null, date1904: false, size: bytes.length },
        status: 'queued',
        createdBy: actorLabel(actor),
        purgeAfter: importPurgeAfter(now),
        createdAt: now,
      })
      .returning({ id: importBatches.id });
    return row!.id;
  });
  admission?.release();
  // A batch without its file is no stager's to claim (the claim joins the file): it waits
  // for this write, and goes if the write fails.
  try {
    const { stored, deflated } = await storedForm(bytes, kind);
    return await ctx.uploads.write(() =>
      ctx.db.transaction(async (tx) => {
        await tx.insert(importUploads).values({ batchId, accountId, sheets, codePage: codePage ?? null, deflated, requestId });
        // A piece encrypted and sent at a time: each is a turn of the event loop of its own.
        for (let piece = 0; piece * UPLOAD_PIECE_BYTES < stored.length; piece++) {
          const part = stored.subarray(piece * UPLOAD_PIECE_BYTES, (piece + 1) * UPLOAD_PIECE_BYTES);
          await tx.insert(importUploadPieces).values({ batchId, piece, pieceEnc: ctx.keyring.encryptBytes(part) });
        }
        await tx.execute(sql`SELECT pg_notify(${QUEUE_CHANNEL}, ${String(batchId)})`);
        return loadBatch(tx, accountId, batchId);
      }),
    );
  } catch (error) {
    await ctx.db.execute(sql`DELETE FROM import_batches WHERE id = ${batchId}`).catch(() => undefined);
    throw error;
  }
}
