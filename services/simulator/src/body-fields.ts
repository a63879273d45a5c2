import type { RequestFields } from './request-body.js';

export interface Leaf {
  /** Dotted path in the body, e.g. "applicant.ssn". */
  path: string;
  /** The last key of the path, lower case without separators: "Bank_Account-Number" -> "bankaccountnumber". */
  name: string;
  value: unknown;
}

function normalizeName(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Every scalar of a body with where it sits; form keys such as "applicant.ssn" count by their last segment. */
export function leaves(body: RequestFields): Leaf[] {
  const found: Leaf[] = [];
  const visit = (value: unknown, path: string, key: string) => {
    if (typeof value === 'object' && value !== null) {
      for (const [childKey, child] of Object.entries(value))
        visit(child, path ? `${path}.${childKey}` : childKey, childKey);
    } else {
      found.push({ path, name: normalizeName(key.split('.').pop() ?? key), value });
    }
  };
  visit(body, '', '');
  return found;
}
