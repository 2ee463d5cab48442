import { appendFileSync, chmodSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

const MAX_BYTES = 10 * 1024 * 1024;
const KEEP = 5;

/**
 * Appends JSON lines to `<dir>/<name>.log`, rotating to .1 … .5 past 10 MB. The journal holds
 * masked personal data and request details: the directory is the owner's alone (0700) and every
 * file readable by the owner only (0600), those of earlier builds included.
 */
export function createFileSink(dir: string, name: string) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const path = join(dir, `${name}.log`);
  for (let i = 0; i <= KEEP; i++) {
    const file = i === 0 ? path : `${path}.${i}`;
    if (existsSync(file)) chmodSync(file, 0o600);
  }
  let size = existsSync(path) ? statSync(path).size : 0;

  function rotate() {
    for (let i = KEEP - 1; i >= 1; i--) {
      if (existsSync(`${path}.${i}`)) renameSync(`${path}.${i}`, `${path}.${i + 1}`);
    }
    if (existsSync(path)) renameSync(path, `${path}.1`);
    size = 0;
  }

  return {
    path,
    write(lines: string) {
      if (size + lines.length > MAX_BYTES) rotate();
      appendFileSync(path, lines, { mode: 0o600 });
      size += Buffer.byteLength(lines);
    },
  };
}
