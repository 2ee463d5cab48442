import { chmodSync, mkdtempSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileSink } from '../../src/journal/file-sink';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('journal files are the owner’s alone', () => {
  it('creates the log directory 0700 and the file 0600', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'journal-')), 'logs');
    const sink = createFileSink(dir, 'server');
    sink.write('{"a":1}\n');
    expect(mode(dir)).toBe(0o700);
    expect(mode(sink.path)).toBe(0o600);
  });

  it('tightens a directory and files left 0755/0644 by an earlier build, rotated ones included', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'journal-')), 'logs');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    for (const name of ['worker.log', 'worker.log.1', 'worker.log.3']) {
      writeFileSync(join(dir, name), 'x\n');
      chmodSync(join(dir, name), 0o644);
    }
    createFileSink(dir, 'worker');
    expect(mode(dir)).toBe(0o700);
    for (const name of ['worker.log', 'worker.log.1', 'worker.log.3']) expect(mode(join(dir, name))).toBe(0o600);
  });
});
