import { TtlCache } from '@leadflow/service-kit/ttl-cache';

export type JsonPathSegment = string | number;

// One step after the root: .name, [0], ['quoted name'] or ["quoted name"] (backslash escapes inside quotes).
const STEP = /\.([^.[\]'"]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;

/**
 * The steps of "$.a.b", "$.a[0].b", "$['key with space']" or a bare "a.b" / "a[0]"; [] for "$".
 * undefined when the path is not of that small grammar (no wildcards, filters or recursive descent).
 */
export function parseJsonPath(path: string): JsonPathSegment[] | undefined {
  const rest = path.startsWith('$') ? path.slice(1) : /^[[.]/.test(path) ? path : `.${path}`;
  const segments: JsonPathSegment[] = [];
  STEP.lastIndex = 0;
  while (STEP.lastIndex < rest.length) {
    const start = STEP.lastIndex;
    const step = STEP.exec(rest);
    if (!step || STEP.lastIndex === start) return undefined;
    const [, name, index, single, double] = step;
    if (index !== undefined) segments.push(Number(index));
    else segments.push(name ?? unescapeQuoted(single ?? double));
  }
  return segments;
}

/** A parser's few paths, parsed once; null: not a path of the grammar. */
const PARSED = new TtlCache<string, readonly JsonPathSegment[] | null>(Number.POSITIVE_INFINITY, 1024);

/** parseJsonPath, kept for the next reply: a parser's few paths are read in every reply. */
export function cachedJsonPath(path: string): readonly JsonPathSegment[] | undefined {
  let segments = PARSED.get(path);
  if (segments === undefined) {
    segments = parseJsonPath(path) ?? null;
    PARSED.set(path, segments);
  }
  return segments ?? undefined;
}

function unescapeQuoted(quoted: string): string {
  return quoted.replace(/\\(.)/g, '$1');
}

/** The value at the path, undefined when any step is missing. Only own properties are read. */
export function selectJsonPath(root: unknown, segments: readonly JsonPathSegment[]): unknown {
  let node = root;
  for (const segment of segments) {
    if (Array.isArray(node)) {
      const index = typeof segment === 'number' ? segment : /^\d+$/.test(segment) ? Number(segment) : undefined;
      node = index === undefined ? undefined : node[index];
    } else if (typeof node === 'object' && node !== null && Object.hasOwn(node, segment)) {
      node = (node as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return node;
}
