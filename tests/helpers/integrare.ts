import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { reservePort } from './ports';
import { startTestApp, type TestApp } from './app';
import { browser, FAST_SCRYPT, makeUser } from './web';

/**
 * A live gateway whose public address is its own loopback port (so the examples the page
 * shows point at it), and a signed-in dashboard user of a fresh account.
 */
export async function startLiveGateway(env: Record<string, string> = {}) {
  const port = await reservePort();
  const base = `http://127.0.0.1:${port}`;
  const t: TestApp = await startTestApp({ ...FAST_SCRYPT, GATEWAY_PUBLIC_URL: base, ...env });
  const server = serve({ fetch: t.app.fetch, port, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  if ((server.address() as AddressInfo).port !== port) throw new Error('the gateway did not take its port');
  return {
    t,
    base,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await t.close();
    },
  };
}

/** The page's code blocks by id, as text (the HTML entities hono/jsx wrote undone). */
export async function pageExamples(t: TestApp, accountId: number): Promise<Map<string, string>> {
  const user = await makeUser(t, accountId);
  const web = browser(t);
  await web.login(user.email);
  const html = await (await web.get('/integrare')).text();
  const blocks = new Map<string, string>();
  for (const m of html.matchAll(/<pre id="(ex-[\w-]+)"[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)) blocks.set(m[1]!, decodeHtml(m[2]!));
  return blocks;
}

export function decodeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** A program run without blocking the event loop (the gateway it calls lives in this process). */
export function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', (error) => resolve({ status: -1, stdout, stderr: String(error) }));
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
