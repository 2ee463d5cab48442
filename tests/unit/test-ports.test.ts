import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reservableRange, reservePort } from '../helpers/ports';

// A port a test gives another process to bind later must be one no outgoing connection can take
// meanwhile (the kernel's ephemeral range) and no other test process is given.

const ephemeral = () => readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number) as [number, number];

describe('reservePort', () => {
  it.skipIf(!existsSync('/proc/sys/net/ipv4/ip_local_port_range'))('gives ports outside the range the kernel hands out by itself', async () => {
    const [low, high] = ephemeral();
    const [from, to] = reservableRange();
    expect(to < low || from > high).toBe(true);
    for (let i = 0; i < 5; i++) {
      const port = await reservePort();
      expect(port < low || port > high, String(port)).toBe(true);
    }
  });

  it('gives each port once, free, and marks it reserved for this process', async () => {
    const ports = await Promise.all(Array.from({ length: 10 }, () => reservePort()));
    expect(new Set(ports).size).toBe(10);
    for (const port of ports) expect(readFileSync(join(tmpdir(), 'gateway-test-ports', String(port)), 'utf8')).toBe(String(process.pid));
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
