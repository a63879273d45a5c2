import type { LeadField } from '@leadflow/core/lead-fields';

/*
 * The part of a leadflow buyer document's `integration:` that the simulator writes, in the
 * document's own terms. The simulator tests the engine from outside, so it keeps its own copy of
 * this public format rather than the engine's types; test/services/simulator/integrations.test.ts holds the two together.
 */

/** A value located in a reply: a JSON path, an XPath, or a regex with one group (text). */
export interface ReplyLocator {
  path: string;
}

export interface ResponseParser {
  format: 'json' | 'xml' | 'text';
  accepted: ReplyLocator & { equals: string };
  price: ReplyLocator | undefined;
  reason: ReplyLocator | undefined;
  reference: ReplyLocator | undefined;
  redirectUrl: ReplyLocator | undefined;
}

/** Where a mapped value comes from: a lead field (`age` derived), the lead's id, or the ping's reference. */
export interface FieldSource {
  field: LeadField | 'age' | 'leadId' | 'pingReference';
  /** Amounts in cents written as dollars. */
  transform: { money: 'string' }[];
}

export interface HttpExchange {
  url: string;
  testUrl: string | undefined;
  method: 'POST';
  format: 'json' | 'form';
  headers: Record<string, string>;
  auth: { type: 'bearer'; token: string } | { type: 'basic'; username: string; password: string } | undefined;
  mapping: Record<string, FieldSource>;
  response: ResponseParser;
}

export interface Integration {
  mode: 'direct_post' | 'ping_post';
  ping: HttpExchange | undefined;
  post: HttpExchange;
  timeoutMs: number;
  pingTimeoutMs: undefined;
  postTimeoutMs: undefined;
  local: true;
  testBehaviour: 'test_url';
  onTimeout: 'unconfirmed';
  statusLookup: undefined;
}
