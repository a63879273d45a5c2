import { LEAD_FIELDS, type LeadField } from '@leadflow/core/lead-fields';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import type { FastifyRequest, RequestPayload } from 'fastify';
import { GatewayError } from '../errors.js';

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The intake's preParsing hook: a compressed body is refused before it is read, with a 415 that says so
 * (read as it is, gzip would be "must be valid JSON", which sends a client looking in the wrong place).
 */
export async function refuseEncodedBody(request: FastifyRequest, _reply: unknown, payload: RequestPayload) {
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    throw GatewayError.of('UNSUPPORTED_ENCODING');
  }
  return payload;
}

export interface LeadSubmission {
  lead: Lead;
  /** Fields sent with a JSON value other than a string; the service reports each as invalid. */
  nonStringFields: LeadField[];
}

function isJsonObject(body: unknown): body is Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

/**
 * A JSON escape of half a surrogate pair (`"\ud800"`) with no other half: not text. gRPC carries strings as
 * UTF-8, which would turn it into U+FFFD and let it pass the service's checks as a character.
 */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * The parsed JSON body as a lead. Only the known field names are read, each as
 * an own property, so unknown fields are dropped and nothing is looked up on the
 * prototype chain.
 */
export function leadFromBody(body: unknown): LeadSubmission {
  if (!isJsonObject(body)) throw GatewayError.badRequest({ body: 'must be a JSON object' });
  const lead = Lead.fromPartial({});
  const nonStringFields: LeadField[] = [];
  const notText: Partial<Record<LeadField, string>> = {};
  for (const field of LEAD_FIELDS) {
    if (!Object.hasOwn(body, field)) continue;
    const value = body[field];
    if (typeof value !== 'string') nonStringFields.push(field);
    else if (UNPAIRED_SURROGATE.test(value))
      notText[field] = 'must not contain an unpaired surrogate (\\uD800-\\uDFFF)';
    else lead[field] = value;
  }
  if (Object.keys(notText).length > 0) throw GatewayError.badRequest(notText);
  return { lead, nonStringFields };
}
