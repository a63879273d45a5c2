/** One mistake in a document: where it is (`buyers[2].caps.leadsPerDay`) and what is wrong. */
export interface Problem {
  path: string;
  message: string;
}

/**
 * The mistakes found so far. Readers report here and go on, so that one pass finds them all. Messages
 * never repeat a value from the document: it may be a header value, a password or a token.
 */
export class Problems {
  readonly found: Problem[] = [];

  /** Records a mistake; returns undefined so that a reader can `return problems.at(path, message)`. */
  at(path: string, message: string): undefined {
    this.found.push({ path, message });
    return undefined;
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `caps.leadsPerDay`; a key that is not an identifier in brackets: `mapping["applicant.ssn"]`. The document itself is "". */
export function keyPath(parent: string, key: string): string {
  if (!IDENTIFIER.test(key)) return `${parent}[${JSON.stringify(key)}]`;
  return parent === '' ? key : `${parent}.${key}`;
}

export function indexPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}
