import type { Server } from 'node:http';
import type { Config } from '../config';

type Limits = Pick<Config, 'GATEWAY_REQUEST_TIMEOUT_S' | 'GATEWAY_HEADERS_TIMEOUT_S' | 'GATEWAY_KEEPALIVE_TIMEOUT_S' | 'GATEWAY_MAX_CONNECTIONS'>;

/**
 * Options for Node's HTTP server, given when it is created: Node checks its request and
 * header timeouts on an interval (30 s by default), which must be shorter than they are.
 */
export function serverOptions(config: Limits) {
  return {
    requestTimeout: config.GATEWAY_REQUEST_TIMEOUT_S * 1000,
    headersTimeout: config.GATEWAY_HEADERS_TIMEOUT_S * 1000,
    keepAliveTimeout: config.GATEWAY_KEEPALIVE_TIMEOUT_S * 1000,
    connectionsCheckingInterval: Math.min(1000, config.GATEWAY_HEADERS_TIMEOUT_S * 500),
  };
}

/**
 * What a slow or greedy client may hold: a request whose headers or body arrive too slowly is
 * answered 408 and closed, an idle kept-alive socket is closed, and connections past the cap
 * are refused (Node closes them at once).
 */
export function limitServer(server: Server, config: Limits): void {
  const options = serverOptions(config);
  server.requestTimeout = options.requestTimeout;
  server.headersTimeout = options.headersTimeout;
  server.keepAliveTimeout = options.keepAliveTimeout;
  server.maxConnections = config.GATEWAY_MAX_CONNECTIONS;
}
