import type { BuyerDefinition } from './buyer-definition.js';
import { buyerDocument } from './buyer-document.js';
import { type BuyerValues, serviceValues } from './buyer-values.js';
import { parseBuyer } from './parse-buyer.js';
import { type Problem, Problems } from './problems.js';

/**
 * A definition read from the database, checked again with every rule of `buyer apply` (a row written by
 * an older release, restored from a backup or edited by hand must not reach a buyer unchecked): written
 * back in the file form and parsed, its references checked against `values`. The definition used is the
 * parsed one.
 */
export function readStoredDefinition(
  json: string,
  values: BuyerValues = serviceValues(),
): { definition: BuyerDefinition } | { errors: Problem[] } {
  let document: Record<string, unknown>;
  try {
    document = buyerDocument(JSON.parse(json) as BuyerDefinition);
  } catch {
    return { errors: [{ path: '', message: 'is not a buyer definition' }] };
  }
  const problems = new Problems();
  const definition = parseBuyer(document, '', values, problems);
  if (!definition || problems.found.length > 0)
    return {
      errors: problems.found.length > 0 ? problems.found : [{ path: '', message: 'is not a buyer definition' }],
    };
  return { definition };
}
