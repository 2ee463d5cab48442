import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

/** `fetch` (an app's) over real HTTP on a free loopback port, for a browser to reach. */
export async function serveOnLoopback(fetch: (request: Request) => Response | Promise<Response>) {
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
