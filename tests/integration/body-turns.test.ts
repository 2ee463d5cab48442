import { request } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { discardBody, readBody } from '../../src/http/body';

// Issue 17: large bodies arriving at once must not fill a turn of the event loop, or every
// other request waits behind them. libuv reads a socket until it is empty; read as fast as
// they came, sixteen 4 MB bodies gave single turns several MB. Measured here in bytes the server's
// sockets read per turn (a chain of setImmediate: one callback per turn), not in time.

const BODY = Buffer.alloc(4 * 2 ** 20, 'x');
const BODIES = 16;
const CHUNK = 64 * 1024; // what one read of a socket takes at most

let base: string;
let close: () => Promise<void>;
const sockets = new Set<Socket>();
const cutOff: unknown[] = [];

beforeAll(async () => {
  const app = new Hono();
  app.post('/read', async (c) => c.text(String((await readBody(c, 2 * BODY.length)).length)));
  app.post('/upload', async (c) => {
    try {
      const body = await readBody(c, 2 * BODY.length, { upload: true });
      return c.text(`${body.buffer instanceof SharedArrayBuffer} ${body.equals(BODY)}`);
    } catch (error) {
      cutOff.push(error);
      return c.text('cut off', 400);
    }
  });
  app.post('/drop', async (c) => {
    await discardBody(c, 2 * BODY.length);
    return c.text('dropped', 429);
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  server.on('connection', (socket: Socket) => sockets.add(socket));
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
});
afterAll(() => close());

function post(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: 'POST', agent: false, headers: { 'Content-Length': BODY.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(`${res.statusCode} ${Buffer.concat(chunks).toString()}`));
    });
    req.on('error', reject);
    req.end(BODY);
  });
}

/** The most bytes the server's sockets read in one turn of the event loop while `work` ran. */
async function mostPerTurn(work: () => Promise<unknown>): Promise<number> {
  const total = () => [...sockets].reduce((sum, s) => sum + s.bytesRead, 0);
  let most = 0;
  let before = total();
  let running = true;
  const turn = () => {
    const now = total();
    most = Math.max(most, now - before);
    before = now;
    if (running) setImmediate(turn);
  };
  setImmediate(turn);
  await work();
  running = false;
  return most;
}

describe('bodies read a little per turn', () => {
  it(`${BODIES} bodies read at once: about one chunk per socket per turn`, async () => {
    const answers: string[] = [];
    const most = await mostPerTurn(async () => answers.push(...(await Promise.all(Array.from({ length: BODIES }, () => post('/read'))))));
    expect(answers).toEqual(Array(BODIES).fill(`200 ${BODY.length}`));
    expect(most).toBeLessThanOrEqual(BODIES * CHUNK + 4096);
  });

  it('an admitted upload arrives in memory its staging thread shares, whole, read a chunk per turn as the others', async () => {
    const answers: string[] = [];
    const most = await mostPerTurn(async () => answers.push(...(await Promise.all(Array.from({ length: BODIES }, () => post('/upload'))))));
    expect(answers).toEqual(Array(BODIES).fill('200 true true'));
    expect(most).toBeLessThanOrEqual(BODIES * CHUNK + 4096);
  });

  it('an admitted upload cut off by its client fails to read; no part of it is taken for the body', async () => {
    const socket = connect(Number(new URL(base).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${BODY.length}\r\n\r\n`);
    socket.write(BODY.subarray(0, 1024 * 1024));
    // Part of the body arrives and is written; then the client goes.
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await vi.waitFor(() => expect(cutOff).toHaveLength(1));
    expect(cutOff[0]).toBeInstanceOf(Error);
  });

  it(`${BODIES} refused bodies dropped at once: all of them together a few chunks per turn, each client still answered`, async () => {
    const answers: string[] = [];
    const most = await mostPerTurn(async () => answers.push(...(await Promise.all(Array.from({ length: BODIES }, () => post('/drop'))))));
    expect(answers).toEqual(Array(BODIES).fill('429 dropped'));
    // Four per turn, and the few a released body's socket reads before it waits again.
    expect(most).toBeLessThanOrEqual(8 * CHUNK);
  });
});
