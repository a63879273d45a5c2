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
 *   POST /_simulator/best-sales <- {"leads": [leadKey values], "budgetMs": 2000, "minPriceCents": 1250}
 *                            -> 200 {"sales": {lead: {"path", "priceCents", "durationMs"} | null}, "plannedSales": {same}}
 *                               (lead-keyed markets only)
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
    case 'POST best-sales':
      return answerBestSales(market, request, response);
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

async function answerBestSales(market: Market, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (market.leadKey === undefined)
    return sendError(response, 409, 'best sales need a lead-keyed market (config leadKey)');
  let body: unknown;
  try {
    body = JSON.parse(await readText(request));
  } catch (error) {
    if (error instanceof BodyError) return sendError(response, error.status, error.message);
    return sendError(response, 400, 'body must be JSON');
  }
  const { leads, budgetMs, minPriceCents } = (body ?? {}) as Record<string, unknown>;
  const isCount = (value: unknown): value is number =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0;
  if (
    !Array.isArray(leads) ||
    !leads.every((lead) => typeof lead === 'string') ||
    !isCount(budgetMs) ||
    !isCount(minPriceCents)
  ) {
    return sendError(
      response,
      400,
      'expected {"leads": [strings], "budgetMs": whole number, "minPriceCents": whole number}',
    );
  }
  const terms = { budgetMs, minPriceCents };
  sendJson(response, 200, {
    sales: market.bestSales(leads as string[], terms),
    plannedSales: market.plannedSales(leads as string[], terms),
  });
}
