import { setMaxListeners } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleAdminRequest } from './admin.js';
import type { Endpoint, EndpointConfig } from './config.js';
import { ADMIN_PREFIX, parseEndpoints } from './config-validation.js';
import { handleEndpointRequest } from './handle-endpoint.js';
import { sendError } from './http-replies.js';
import type { BestSale, BestSaleTerms } from './lead-draws.js';
import { Market } from './market.js';
import { randomSeed } from './random.js';
import type { SimulatorStats } from './stats.js';

export interface SimulatorOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  endpoints: readonly EndpointConfig[];
  /** Same seed, same requests in the same order: same answers. Random when absent. */
  seed?: number;
  /**
   * The request field that names a lead (e.g. "leadId"): each lead's answers are then drawn from the
   * seed, the endpoint and the lead alone, whatever the order of requests (lead-draws.ts).
   */
  leadKey?: string;
}

export interface Simulator {
  /** e.g. http://127.0.0.1:41234; an endpoint's URL is this plus its path. */
  url: string;
  port: number;
  seed: number;
  /** Replaces the endpoints (validated; throws SimulatorConfigError). */
  configure(endpoints: readonly EndpointConfig[]): void;
  /** The endpoints as validated, every default filled in. */
  config(): Endpoint[];
  stats(): SimulatorStats;
  reset(): void;
  /** With a leadKey: the best sale of each lead a router that knew every answer could have made. */
  bestSales(leads: readonly string[], terms: BestSaleTerms): Record<string, BestSale | null>;
  /** With a leadKey: each lead's sale by the best plan that does not know the lenders' decisions. */
  plannedSales(leads: readonly string[], terms: BestSaleTerms): Record<string, BestSale | null>;
  /** Stops listening and cuts every open connection, hanging ones included. */
  close(): Promise<void>;
}

/** A real HTTP server answering like lenders' APIs, with its admin API under /_simulator/. */
export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const closing = new AbortController();
  // Every request in flight waits on this one signal: hundreds at once are normal, not a leak.
  setMaxListeners(0, closing.signal);
  const market = new Market(options.seed ?? randomSeed(), closing.signal, options.leadKey);
  market.configure(parseEndpoints(options.endpoints));

  const dispatch = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://simulator').pathname;
    if (path.startsWith(ADMIN_PREFIX))
      return handleAdminRequest(market, path.slice(ADMIN_PREFIX.length), request, response);
    const context = market.route(path);
    if (!context) return sendError(response, 404, `no endpoint at ${path}`);
    return handleEndpointRequest(context, request, response);
  };
  const server = createServer((request, response) => {
    dispatch(request, response).catch((error: unknown) => {
      console.error('simulator: request failed:', error);
      if (response.headersSent) response.destroy();
      else sendError(response, 500, 'simulator failure');
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    seed: market.seed,
    configure: (endpoints) => market.configure(parseEndpoints(endpoints)),
    config: () => market.config(),
    stats: () => market.stats(),
    reset: () => market.reset(),
    bestSales: (leads, terms) => market.bestSales(leads, terms),
    plannedSales: (leads, terms) => market.plannedSales(leads, terms),
    close: async () => {
      closing.abort();
      const closed = new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
      server.closeAllConnections();
      await closed;
    },
  };
}
