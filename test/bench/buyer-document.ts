import type { HttpExchange, Integration } from '@leadflow/distribution';
import { type EndpointConfig, simulatorIntegration } from '@leadflow/simulator';

/** A buyer of the bench's apply document (format: parse-buyers.ts) that sells to a simulator endpoint. */
export interface SimulatorBuyer {
  name: string;
  tier: number;
  /** The endpoint it posts to: a direct_post, or the post of a ping-post pair (whose ping it then uses). */
  postPath: string;
  timeoutMs: number;
  /** As written in the file: dollars. */
  pricing: { type: 'fixed'; price: string } | { type: 'bid' };
  payout: { revenueShare: number };
}

/** The file form of an exchange: as parsed, but auth written `{bearer}` or `{basic: {username, password}}`. */
function exchangeDocument({ auth, ...exchange }: HttpExchange): Record<string, unknown> {
  if (!auth) return exchange;
  const written =
    auth.type === 'bearer' ? { bearer: auth.token } : { basic: { username: auth.username, password: auth.password } };
  return { ...exchange, auth: written };
}

function integrationDocument(integration: Integration): Record<string, unknown> {
  return {
    ...integration,
    ping: integration.ping && exchangeDocument(integration.ping),
    post: exchangeDocument(integration.post),
  };
}

/**
 * The `leadflow buyer apply` document of buyers selling to a simulator at simulatorUrl that runs
 * endpoints: their integrations are the simulator's own (simulatorIntegration), local (http://), caps off.
 */
export function buyersDocument(
  simulatorUrl: string,
  endpoints: readonly EndpointConfig[],
  buyers: readonly SimulatorBuyer[],
): unknown {
  return {
    buyers: buyers.map(({ name, tier, postPath, timeoutMs, pricing, payout }) => ({
      name,
      tier,
      pricing,
      payout,
      integration: integrationDocument(simulatorIntegration(simulatorUrl, endpoints, postPath, { timeoutMs })),
    })),
  };
}
