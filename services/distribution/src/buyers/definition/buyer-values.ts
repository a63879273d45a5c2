import { readFileSync } from 'node:fs';
import type * as Yaml from 'yaml';
import { lazyModule } from '../../lazy-module.js';

const yaml = lazyModule<typeof Yaml>('yaml');

/**
 * Where the `${env:NAME}` and `${secret:a.b}` references of a buyer file are looked up: the distribution
 * service's own environment and its secrets file, so that the file names a value and never holds it.
 */
export interface BuyerValues {
  env(name: string): string | undefined;
  /** undefined when the key is not in the secrets file, or there is none. */
  secret(key: string): string | undefined;
  /** Why secret(key) can find nothing at all (no file configured, unreadable), for error messages. */
  secretsProblem(): string | undefined;
}

/** Names the secrets file: a YAML or JSON object of nested keys, read at start and at each buyer apply. */
export const SECRETS_FILE_VARIABLE = 'LEADFLOW_BUYER_SECRETS_FILE';

type SecretsFile = { secrets: Record<string, unknown> } | { problem: string };

function readSecretsFile(path: string | undefined): SecretsFile {
  if (path === undefined || path === '') return { problem: `no secrets file is configured (${SECRETS_FILE_VARIABLE})` };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { problem: `the secrets file named by ${SECRETS_FILE_VARIABLE} cannot be read` };
  }
  let document: unknown;
  try {
    document = yaml().parse(text);
  } catch {
    // The parser's message may quote the file, and the file is secrets.
    return { problem: `the secrets file named by ${SECRETS_FILE_VARIABLE} is not valid YAML or JSON` };
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return { problem: `the secrets file named by ${SECRETS_FILE_VARIABLE} must be an object of keys` };
  }
  return { secrets: document as Record<string, unknown> };
}

/** The value at a dotted key ("acme.token"); only text, numbers and true/false are values. */
function lookUp(secrets: Record<string, unknown>, key: string): string | undefined {
  let node: unknown = secrets;
  for (const part of key.split('.')) {
    if (typeof node !== 'object' || node === null || Array.isArray(node) || !Object.hasOwn(node, part))
      return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  if (typeof node === 'string') return node;
  if (typeof node === 'number' || typeof node === 'boolean') return String(node);
  return undefined;
}

/** Values from an environment and a secrets file; reload() reads the file again (rotation). */
export class EnvironmentValues implements BuyerValues {
  private file: SecretsFile;

  constructor(private readonly environment: NodeJS.ProcessEnv = process.env) {
    this.file = readSecretsFile(environment[SECRETS_FILE_VARIABLE]);
  }

  reload(): void {
    this.file = readSecretsFile(this.environment[SECRETS_FILE_VARIABLE]);
  }

  env(name: string): string | undefined {
    return Object.hasOwn(this.environment, name) ? this.environment[name] : undefined;
  }

  secret(key: string): string | undefined {
    return 'secrets' in this.file ? lookUp(this.file.secrets, key) : undefined;
  }

  secretsProblem(): string | undefined {
    return 'problem' in this.file ? this.file.problem : undefined;
  }
}

let processValues: EnvironmentValues | undefined;

/** The service's own environment and secrets file, shared by apply and by every call to a buyer. */
export function serviceValues(): EnvironmentValues {
  processValues ??= new EnvironmentValues();
  return processValues;
}
