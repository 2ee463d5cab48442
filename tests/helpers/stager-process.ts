import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { waitFor } from './worker';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * A stager as `npm run stager` runs it (src/stager.ts, through tsx), on the database of `env`:
 * for a test whose server must stay answering while a large file stages, as in production,
 * rather than share its event loop with an in-process stager.
 */
export async function startStagerProcess(env: Record<string, string>): Promise<{ stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/stager.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, GATEWAY_STAGER_NICE: '0', GATEWAY_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the stager exited:\n${out}`);
      return out.includes('waiting for uploaded files') || undefined;
    },
    60_000,
    'the stager to start',
  );
  return {
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
