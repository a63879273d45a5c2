import { MAX_CLICKID_LENGTH } from '@leadflow/core/lead-field-rules';

/**
 * The longest route parameter matched: any clickid, every character percent-encoded. (Fastify's default,
 * 100, would turn away a long clickid's status before its key is checked.)
 */
export const MAX_ROUTE_PARAM_LENGTH = 3 * MAX_CLICKID_LENGTH;

/**
 * What a parameter past MAX_ROUTE_PARAM_LENGTH is: no key is that long, so a key (the segment after
 * /api/intake/), as the intake answers any unknown one; else a clickid no lead can have.
 */
export function overLongParameter(url: string): 'UNAUTHORIZED' | 'NOT_FOUND' {
  const [key = ''] = url.split('?', 1)[0]!.split('/').slice(3);
  return key.length > MAX_ROUTE_PARAM_LENGTH ? 'UNAUTHORIZED' : 'NOT_FOUND';
}
