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

/** A buyer's record, its definition still the JSON that was applied; rows stay in buyer.repository.ts. */
export interface StoredBuyer {
  id: string;
  name: string;
  /** Kept apart from the definition so that pause and resume need not rewrite it. */
  active: boolean;
  definitionJson: string;
  createdAt: number;
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

/** The buyer of a stored record, its definition checked again; throws InvalidStoredBuyerError. */
export function buyerFromStored(stored: StoredBuyer, values?: BuyerValues): Buyer {
  const read = readStoredDefinition(stored.definitionJson, values);
  if ('errors' in read) throw new InvalidStoredBuyerError(stored.id, read.errors);
  return { id: stored.id, definition: { ...read.definition, active: stored.active }, updatedAt: stored.updatedAt };
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
