import type { BuyerRow } from '../db/schema.js';
import type { BuyerDefinition, HttpExchange } from './definition/buyer-definition.js';
import type { BuyerValues } from './definition/buyer-values.js';
import type { Problem } from './definition/problems.js';
import { readStoredDefinition } from './definition/stored-definition.js';

/** A buyer as stored: its id and its declared definition. */
export interface Buyer {
  id: string;
  definition: BuyerDefinition;
  updatedAt: number;
}

/** A stored definition that fails the checks of `buyer apply`: the buyer is not used until a valid one is applied. */
export class InvalidStoredBuyerError extends Error {
  constructor(
    readonly buyerId: string,
    readonly problems: Problem[],
  ) {
    super(
      `the stored definition of buyer ${buyerId} is invalid (${problems.map((problem) => `${problem.path || 'definition'}: ${problem.message}`).join('; ')}); apply a corrected file`,
    );
    this.name = 'InvalidStoredBuyerError';
  }
}

/** The buyer of a row, its definition checked again; throws InvalidStoredBuyerError. */
export function buyerFromRow(row: BuyerRow, values?: BuyerValues): Buyer {
  const stored = readStoredDefinition(row.definition, values);
  if ('errors' in stored) throw new InvalidStoredBuyerError(row.id, stored.errors);
  // `active` has its own column so that pause and resume need not rewrite the definition.
  return { id: row.id, definition: { ...stored.definition, active: row.active === 1 }, updatedAt: row.updated_at };
}

const REDACTED = '[redacted]';

function redactExchange(exchange: HttpExchange): HttpExchange {
  return {
    ...exchange,
    headers: Object.fromEntries(Object.keys(exchange.headers).map((name) => [name, REDACTED])),
    auth: exchange.auth === undefined ? undefined : (REDACTED as unknown as HttpExchange['auth']),
    // Constants in a body are where some buyers want their API key.
    mapping: Object.fromEntries(
      Object.entries(exchange.mapping).map(([key, source]) => [key, 'value' in source ? { value: REDACTED } : source]),
    ),
  };
}

/** The definition with header values, credentials and body constants hidden, for showing to operators. */
export function redactedDefinition(definition: BuyerDefinition): BuyerDefinition {
  const { integration } = definition;
  return {
    ...definition,
    integration: {
      ...integration,
      post: redactExchange(integration.post),
      ping: integration.ping === undefined ? undefined : redactExchange(integration.ping),
      statusLookup: integration.statusLookup === undefined ? undefined : redactExchange(integration.statusLookup),
    },
  };
}
