import { Lead, type SubmitLeadRequest } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { LEAD_FIELDS } from './lead-fields.js';

/** Maps a posted body to the gRPC request as the real gateway must; undefined when the body is not an object. */
export function toSubmitLeadRequest(webmasterKey: string, body: unknown): SubmitLeadRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const posted = body as Record<string, unknown>;
  const lead = Lead.fromPartial({});
  const nonStringFields: string[] = [];
  for (const field of LEAD_FIELDS) {
    const value = posted[field];
    if (typeof value === 'string') lead[field] = value;
    else if (value !== undefined) nonStringFields.push(field);
  }
  return { webmasterKey, lead, nonStringFields };
}
