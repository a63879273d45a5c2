import type { BuyerValues } from './buyer-values.js';

/**
 * `${env:NAME}` and `${secret:dotted.key}` inside a text of a buyer file (a URL, a header, a credential,
 * a constant); `$${` writes a literal `${`. The stored definition keeps the references: values are
 * looked up where the request is built, so the database never holds them and a rotated secret is used
 * without a new apply.
 */
export type Reference = { kind: 'env' | 'secret'; name: string };

/**
 * The service's own settings (docs/configuration.md): its keys, tokens, database and exporter URLs. A
 * buyer file names the URL a value is sent to, so it may not read them. Names ignore case, as some
 * platforms' environments do.
 */
const SERVICE_SETTING = /^(?:LEADFLOW_|OTEL_)|^(?:DATABASE_URL|REDIS_URL)$/i;
const SERVICE_SETTING_PROBLEM =
  "is one of the service's own settings (LEADFLOW_*, OTEL_*, DATABASE_URL, REDIS_URL), which a buyer file may not read";

const PATTERN = /\$\$\{|\$\{([^}]*)\}?/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SECRET_KEY = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

type Piece = string | Reference;

/** The text's literal pieces and references, or the reason it is malformed or not allowed (never quoting it). */
function pieces(text: string): { pieces: Piece[] } | { problem: string } {
  const result: Piece[] = [];
  let last = 0;
  for (const match of text.matchAll(PATTERN)) {
    result.push(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[0] === '$${') {
      result.push('${');
      continue;
    }
    if (!match[0].endsWith('}')) return { problem: 'has a "${" without its "}" (write $${ for a literal ${)' };
    const [kind, ...rest] = (match[1] ?? '').split(':');
    const name = rest.join(':');
    if (kind === 'env' && ENV_NAME.test(name)) {
      if (SERVICE_SETTING.test(name)) return { problem: `\${env:${name}}: ${SERVICE_SETTING_PROBLEM}` };
      result.push({ kind, name });
    } else if (kind === 'secret' && SECRET_KEY.test(name)) {
      result.push({ kind, name });
    } else {
      return { problem: 'has a reference that is not ${env:NAME} or ${secret:key.path} (write $${ for a literal ${)' };
    }
  }
  result.push(text.slice(last));
  return { pieces: result.filter((piece) => piece !== '') };
}

export function hasReferences(text: string): boolean {
  return text.includes('${');
}

export type Resolution = { value: string } | { problem: string };

function describe(reference: Reference): string {
  return reference.kind === 'env' ? `\${env:${reference.name}}` : `\${secret:${reference.name}}`;
}

/**
 * The text with its references replaced by their values, or what is wrong: a malformed reference, or one
 * whose value is missing. Messages name the reference, never a value.
 */
export function resolveReferences(text: string, values: BuyerValues): Resolution {
  if (!hasReferences(text)) return { value: text };
  const parsed = pieces(text);
  if ('problem' in parsed) return parsed;
  let value = '';
  for (const piece of parsed.pieces) {
    if (typeof piece === 'string') {
      value += piece;
      continue;
    }
    const found = piece.kind === 'env' ? values.env(piece.name) : values.secret(piece.name);
    if (found === undefined) {
      const where =
        piece.kind === 'env'
          ? "is not set in the distribution service's environment"
          : (values.secretsProblem() ?? 'is not a text in the secrets file');
      return { problem: `${describe(piece)}: ${where}` };
    }
    value += found;
  }
  return { value };
}
