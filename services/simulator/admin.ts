import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { parseEndpoints, SimulatorConfigError } from './config-validation.js';
import { sendError, sendJson } from './http-replies.js';
import type { Market } from './market.js';
import { BodyError, readText } from './request-body.js';

/**
 * The admin API, for a process that did not start the simulator:
 *   GET  /_simulator/config  -> 200 {"seed": 42, "endpoints": [...]} (every default filled in)
 *   PUT  /_simulator/config  <- {"endpoints": [...]} as JSON or YAML
 *                            -> 200 as GET, or 400 {"status":"error","message":"...","issues":["endpoints[0].kind: ..."]}
 *   GET  /_simulator/stats   -> 200 SimulatorStats (stats.ts)
 *   POST /_simulator/reset   -> 204; counters, remembered bids and applicants forgotten, random streams restarted
 */
export async function handleAdminRequest(
  market: Market,
  route: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const action = `${request.method} ${route}`;
  switch (action) {
    case 'GET config':
      return sendJson(response, 200, { seed: market.seed, endpoints: market.config() });
    case 'PUT config':
      return replaceConfig(market, request, response);
    case 'GET stats':
      return sendJson(response, 200, market.stats());
    case 'POST reset':
      market.reset();
      response.writeHead(204).end();
      return;
    default:
      return sendError(response, 404, `no admin action ${action}`);
  }
}

async function replaceConfig(market: Market, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let body: unknown;
  try {
    body = parseYaml(await readText(request));
  } catch (error) {
    if (error instanceof BodyError) return sendError(response, error.status, error.message);
    if (error instanceof YAMLParseError)
      return sendError(response, 400, `body is neither JSON nor YAML: ${error.message}`);
    throw error;
  }
  try {
    if (typeof body !== 'object' || body === null || !('endpoints' in body) || Object.keys(body).length !== 1) {
      throw new SimulatorConfigError(['config: must be an object with only "endpoints"']);
    }
    market.configure(parseEndpoints(body.endpoints));
  } catch (error) {
    if (!(error instanceof SimulatorConfigError)) throw error;
    return sendJson(response, 400, { status: 'error', message: 'invalid simulator config', issues: error.issues });
  }
  sendJson(response, 200, { seed: market.seed, endpoints: market.config() });
}
