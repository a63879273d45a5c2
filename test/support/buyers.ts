import { LEAD_FIELDS } from '@leadflow/core/lead-fields';

/** Sends every lead field under its own name, plus the lead id. */
const EVERY_FIELD: Record<string, string> = {
  leadId: 'leadId',
  ...Object.fromEntries(LEAD_FIELDS.map((field) => [field, field])),
};

/**
 * A buyer entry of an apply document for a test buyer server (test/support/buyer-server.ts):
 * a local direct post whose answer is `{"accepted": true|false, "reason", "redirectUrl"}`.
 * `settings` are merged at the top level (tier, priority, filters, caps, duplicates, pricing, payout)
 * and `integration` settings into the integration.
 */
export function testBuyer(
  name: string,
  url: string,
  settings: Record<string, unknown> & { integration?: Record<string, unknown>; post?: Record<string, unknown> } = {},
): Record<string, unknown> {
  const { integration, post, ...rest } = settings;
  return {
    name,
    pricing: { type: 'fixed', price: '20.00' },
    ...rest,
    integration: {
      mode: 'direct_post',
      local: true,
      timeoutMs: 2000,
      ...integration,
      post: {
        url,
        mapping: EVERY_FIELD,
        response: {
          format: 'json',
          accepted: { path: '$.accepted', equals: 'true' },
          reason: '$.reason',
          redirectUrl: '$.redirectUrl',
        },
        ...post,
      },
    },
  };
}
