import { createCipheriv, createDecipheriv, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';

/**
 * The backup archive: a stream of frames (type, length, payload), cut into chunks, each chunk
 * sealed with AES-256-GCM under a key derived from a passphrase with scrypt. The file is
 *
 *   gateway-backup 1\n
 *   {"kdf":"scrypt",...,"salt":...,"check":...}\n          the header (its bytes are in every chunk's AAD)
 *   [flag u8][length u32 BE][ciphertext + 16-byte tag]  ...  the last chunk has flag 1
 *
 * A chunk's nonce is its number, its AAD the header, its number and its flag: a chunk changed,
 * moved, dropped or cut off, and an archive whose last chunk is missing, fail to authenticate.
 * `check` tells a wrong passphrase from a damaged archive.
 */
const MAGIC = 'gateway-backup 1\n';
const CHUNK_BYTES = 1 << 20;
const TAG_BYTES = 16;
const MAX_FRAME_BYTES = 64 << 20;
// OWASP's scrypt figures for interactive use are lower; a backup is opened rarely, by an operator.
const SCRYPT = { N: 1 << 17, r: 8, p: 1 } as const;

export class ArchiveError extends Error {}

export type FrameType = 'H' | 'T' | 'D' | 'E' | 'Z';
export interface Frame {
  type: FrameType;
  payload: Buffer;
}

interface Header {
  kdf: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
  check: string;
}

function deriveKey(passphrase: string, header: Pick<Header, 'N' | 'r' | 'p' | 'salt'>): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase, Buffer.from(header.salt, 'base64'), 32, { N: header.N, r: header.r, p: header.p, maxmem: 256 * header.N * header.r }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

const passphraseCheck = (key: Buffer) => createHmac('sha256', key).update('gateway-backup passphrase check').digest().subarray(0, 16);

function nonce(index: number): Buffer {
  const iv = Buffer.alloc(12);
  iv.writeBigUInt64BE(BigInt(index), 4);
  return iv;
}

function aad(headerBytes: Buffer, index: number, final: boolean): Buffer {
  const tail = Buffer.alloc(9);
  tail.writeBigUInt64BE(BigInt(index));
  tail[8] = final ? 1 : 0;
  return Buffer.concat([headerBytes, tail]);
}

export interface ArchiveWriter {
  frame(type: FrameType, payload: Buffer | string): Promise<void>;
  /** Seals the last chunk and puts the archive in its place. */
  close(): Promise<{ bytes: number }>;
  /** Removes what was written: a backup that failed leaves no archive behind. */
  abort(): Promise<void>;
}

/** Writes to `<path>.partial`, renamed to `path` by `close`, so a half-written file never looks like a backup. */
export async function createArchive(path: string, passphrase: string): Promise<ArchiveWriter> {
  const partial = `${path}.partial`;
  // A .partial left by a backup that was killed is written over.
  const file = await open(partial, 'w', 0o600);
  const salt = randomBytes(16).toString('base64');
  const key = await deriveKey(passphrase, { ...SCRYPT, salt });
  const header: Header = { kdf: 'scrypt', ...SCRYPT, salt, check: passphraseCheck(key).toString('base64') };
  const headerBytes = Buffer.from(`${MAGIC}${JSON.stringify(header)}\n`);
  await file.write(headerBytes);
  let bytes = headerBytes.length;
  let index = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;

  async function seal(plain: Buffer, final: boolean) {
    const cipher = createCipheriv('aes-256-gcm', key, nonce(index));
    cipher.setAAD(aad(headerBytes, index, final));
    const body = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    const prefix = Buffer.alloc(5);
    prefix[0] = final ? 1 : 0;
    prefix.writeUInt32BE(body.length, 1);
    await file.write(Buffer.concat([prefix, body]));
    bytes += prefix.length + body.length;
    index++;
  }

  async function flushFull() {
    while (pendingBytes >= CHUNK_BYTES) {
      const all = Buffer.concat(pending);
      await seal(all.subarray(0, CHUNK_BYTES), false);
      pending = [all.subarray(CHUNK_BYTES)];
      pendingBytes = all.length - CHUNK_BYTES;
    }
  }

  return {
    async frame(type, payload) {
      const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
      const head = Buffer.alloc(5);
      head.write(type, 0, 'latin1');
      head.writeUInt32BE(body.length, 1);
      pending.push(head, body);
      pendingBytes += head.length + body.length;
      await flushFull();
    },
    async close() {
      await seal(Buffer.concat(pending), true);
      await file.sync();
      await file.close();
      await rename(partial, path);
      return { bytes };
    },
    async abort() {
      await file.close().catch(() => undefined);
      await rm(partial, { force: true });
    },
  };
}

/** Reads exactly `length` bytes at `position`, or fewer at the end of the file. */
async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await file.read(buffer, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buffer.subarray(0, got);
}

async function readHeader(file: FileHandle, passphrase: string): Promise<{ headerBytes: Buffer; key: Buffer }> {
  const start = await readAt(file, 0, 4096);
  if (!start.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC))) throw new ArchiveError('Fișierul nu este o arhivă de backup a gateway-ului (început necunoscut).');
  const end = start.indexOf(0x0a, MAGIC.length);
  if (end < 0) throw new ArchiveError('Arhiva este deteriorată: antetul ei nu se termină.');
  const headerBytes = start.subarray(0, end + 1);
  let header: Header;
  try {
    header = JSON.parse(headerBytes.subarray(MAGIC.length).toString('utf8')) as Header;
  } catch {
    throw new ArchiveError('Arhiva este deteriorată: antetul ei nu se poate citi.');
  }
  if (header.kdf !== 'scrypt' || !(header.N > 1 && header.N <= 1 << 20) || !(header.r >= 1 && header.r <= 32) || header.p !== 1) {
    throw new ArchiveError('Arhiva este deteriorată: parametrii antetului nu sunt valizi.');
  }
  const key = await deriveKey(passphrase, header);
  const expected = Buffer.from(header.check ?? '', 'base64');
  const actual = passphraseCheck(key);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
    throw new ArchiveError('Parola arhivei nu se potrivește (GATEWAY_BACKUP_PASSPHRASE / GATEWAY_BACKUP_PASSPHRASE_FILE), sau antetul arhivei este deteriorat.');
  }
  return { headerBytes: Buffer.from(headerBytes), key };
}

/** Opens the archive and checks its header and passphrase (not its contents): a restore's check before it touches anything. */
export async function checkArchivePassphrase(path: string, passphrase: string): Promise<void> {
  const file = await openArchive(path);
  try {
    await readHeader(file, passphrase);
  } finally {
    await file.close();
  }
}

const openArchive = (path: string) =>
  open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new ArchiveError(`Arhiva ${path} nu se poate deschide (${error.code ?? error.message}).`);
  });

/** The archive's chunks, decrypted and authenticated, in order; throws ArchiveError at the first fault. */
async function* chunks(path: string, passphrase: string): AsyncGenerator<Buffer> {
  const file = await openArchive(path);
  try {
    const { headerBytes, key } = await readHeader(file, passphrase);
    let position = headerBytes.length;
    for (let index = 0; ; index++) {
      const prefix = await readAt(file, position, 5);
      if (prefix.length === 0) throw new ArchiveError(`Arhiva este trunchiată: se termină după ${position} octeți, înainte de ultima ei parte (o copie întreruptă?).`);
      const length = prefix.length === 5 ? prefix.readUInt32BE(1) : -1;
      const final = prefix[0] === 1;
      if (length < TAG_BYTES || length > CHUNK_BYTES + TAG_BYTES || prefix[0]! > 1) {
        throw new ArchiveError(`Arhiva este deteriorată la octetul ${position} (partea ${index + 1}).`);
      }
      const body = await readAt(file, position + 5, length);
      if (body.length < length) throw new ArchiveError(`Arhiva este trunchiată: partea ${index + 1} se oprește la octetul ${position + 5 + body.length}.`);
      let plain: Buffer;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, nonce(index));
        decipher.setAAD(aad(headerBytes, index, final));
        decipher.setAuthTag(body.subarray(length - TAG_BYTES));
        plain = Buffer.concat([decipher.update(body.subarray(0, length - TAG_BYTES)), decipher.final()]);
      } catch {
        throw new ArchiveError(`Arhiva este deteriorată: partea ${index + 1} (octeții ${position}–${position + 5 + length}) nu trece verificarea.`);
      }
      position += 5 + length;
      yield plain;
      if (final) {
        if ((await readAt(file, position, 1)).length > 0) throw new ArchiveError(`Arhiva are octeți în plus după ultima ei parte (de la octetul ${position}).`);
        return;
      }
    }
  } finally {
    await file.close();
  }
}

/** The archive's frames, in order. */
export async function* readArchive(path: string, passphrase: string): AsyncGenerator<Frame> {
  let buffer: Buffer = Buffer.alloc(0);
  for await (const plain of chunks(path, passphrase)) {
    buffer = buffer.length === 0 ? plain : Buffer.concat([buffer, plain]);
    let offset = 0;
    while (buffer.length - offset >= 5) {
      const length = buffer.readUInt32BE(offset + 1);
      if (length > MAX_FRAME_BYTES) throw new ArchiveError('Arhiva este deteriorată: o înregistrare are o lungime imposibilă.');
      if (buffer.length - offset - 5 < length) break;
      const type = String.fromCharCode(buffer[offset]!) as FrameType;
      yield { type, payload: buffer.subarray(offset + 5, offset + 5 + length) };
      offset += 5 + length;
    }
    buffer = buffer.subarray(offset);
  }
  if (buffer.length > 0) throw new ArchiveError('Arhiva este deteriorată: ultima înregistrare este incompletă.');
}
