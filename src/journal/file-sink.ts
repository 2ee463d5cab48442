import { appendFileSync, existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

const MAX_BYTES = 10 * 1024 * 1024;
const KEEP = 5;

/** Appends JSON lines to `<dir>/<name>.log`, rotating to .1 … .5 past 10 MB. */
export function createFileSink(dir: string, name: string) {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.log`);
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
      appendFileSync(path, lines);
      size += Buffer.byteLength(lines);
    },
  };
}
