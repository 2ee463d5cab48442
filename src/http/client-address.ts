import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';
import type { Config } from '../config';

// The one owner of "the client's address", for every per-address limit (failed
// authentications, unreadable bodies, sign-ins, the integration page's key, open connections)
// and for what only this machine may see (/metrics). X-Forwarded-For is believed only from a
// peer listed in GATEWAY_TRUSTED_PROXIES: from anyone else it is a claim the client makes.

type Trusted = Pick<Config, 'GATEWAY_TRUSTED_PROXIES'>;

/** An IPv4 address written as IPv6 (::ffff:203.0.113.7, what a dual-stack socket reports) as plain IPv4. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** `entry` (an address or a CIDR block) as [address, prefix], or an error message. */
export function parseProxyEntry(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | string {
  const [address = '', prefixText, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return `„${entry}” nu este o adresă IP sau un bloc CIDR (de exemplu 127.0.0.1 sau 10.0.0.0/8)`;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d+$/.test(prefixText ?? '0') || prefix > max) return `„${entry}”: prefixul trebuie să fie între 0 și ${max}`;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

const lists = new WeakMap<readonly string[], BlockList>();

function blockList(entries: readonly string[]): BlockList {
  let list = lists.get(entries);
  if (list) return list;
  list = new BlockList();
  for (const entry of entries) {
    const parsed = parseProxyEntry(entry);
    if (typeof parsed === 'string') throw new Error(parsed);
    list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  lists.set(entries, list);
  return list;
}

/** Whether `address` (a socket's peer) is one of the proxies the operator trusts. */
export function isTrustedProxy(config: Trusted, address: string | undefined): boolean {
  if (!address || config.GATEWAY_TRUSTED_PROXIES.length === 0) return false;
  const plain = plainAddress(address);
  const version = isIP(plain);
  return version !== 0 && blockList(config.GATEWAY_TRUSTED_PROXIES).check(plain, version === 4 ? 'ipv4' : 'ipv6');
}

export function isLoopback(address: string): boolean {
  const plain = plainAddress(address);
  return plain === '::1' || /^127\.\d+\.\d+\.\d+$/.test(plain);
}

/**
 * A request that came in without a network peer (the tests' in-process app.request) is this
 * machine's own.
 */
const IN_PROCESS = '127.0.0.1';

/**
 * The client's address of a request whose socket peer is `peer`: the peer itself, unless it
 * is a trusted proxy; then the X-Forwarded-For address nearest to us that is not itself a
 * trusted proxy (each proxy appends the address it saw, so the ones before are the client's
 * own claims), or the peer when the header names only proxies or is absent.
 */
export function clientAddressOf(config: Trusted, peer: string | undefined, forwardedFor: string | string[] | undefined): string {
  const socketPeer = plainAddress(peer ?? IN_PROCESS);
  if (!isTrustedProxy(config, socketPeer)) return socketPeer;
  const hops = [forwardedFor ?? []]
    .flat()
    .join(',')
    .split(',')
    .map((hop) => plainAddress(hop.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!.slice(0, 64);
    if (!isTrustedProxy(config, hop)) return hop;
  }
  return socketPeer;
}

/** The client's address of a Node request (what the connection caps see, before Hono). */
export function clientAddressOfRequest(config: Trusted, req: IncomingMessage): string {
  return clientAddressOf(config, req.socket.remoteAddress, req.headers['x-forwarded-for']);
}

/** The client's address of a request in Hono (Node's request is its env's, as http/body.ts's nodeRequest reads it: config.ts imports this file, which stays free of the HTTP layer). */
export function clientAddress(c: Context, config: Trusted): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return clientAddressOf(config, incoming?.socket.remoteAddress, c.req.header('x-forwarded-for'));
}

/**
 * Whether the request was made on this machine, directly: from loopback and through no proxy.
 * A proxy on this machine that forwards a request from elsewhere names it in X-Forwarded-For
 * (or Forwarded, X-Real-IP), trusted or not: such a request is not this machine's own.
 */
export function fromThisMachine(c: Context, config: Trusted): boolean {
  if (c.req.header('x-forwarded-for') !== undefined || c.req.header('forwarded') !== undefined || c.req.header('x-real-ip') !== undefined) return false;
  return isLoopback(clientAddress(c, config));
}
