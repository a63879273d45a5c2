import { type Document, isAlias, isMap, isNode, isScalar, isSeq, type LineCounter } from 'yaml';

/** 1-based, as editors count. */
export interface Position {
  line: number;
  column: number;
}

/** One step down a path: the part found, where it starts in the source, and what is left of the path. */
interface Step {
  node: unknown;
  offset: number | undefined;
  rest: string;
}

const INDEX = /^\[(\d+)\]/;
const QUOTED_KEY = /^\[("(?:[^"\\]|\\.)*")\]/;

function offsetOf(node: unknown): number | undefined {
  return isNode(node) && node.range ? node.range[0] : undefined;
}

/** How much of `path` the map key `key` accounts for; undefined when the path does not go through it. */
function keyLength(key: string, path: string): number | undefined {
  const quoted = QUOTED_KEY.exec(path);
  if (quoted) return JSON.parse(quoted[1]) === key ? quoted[0].length : undefined;
  const dot = path.startsWith('.') ? 1 : 0;
  const next = path[dot + key.length];
  const fits = path.startsWith(key, dot) && (next === undefined || next === '.' || next === '[');
  return fits ? dot + key.length : undefined;
}

function stepInto(doc: Document, parent: unknown, path: string): Step | undefined {
  const collection = isAlias(parent) ? parent.resolve(doc) : parent;
  const index = INDEX.exec(path);
  if (index) {
    const item = isSeq(collection) ? collection.items[Number(index[1])] : undefined;
    return item === undefined ? undefined : { node: item, offset: offsetOf(item), rest: path.slice(index[0].length) };
  }
  if (!isMap(collection)) return undefined;
  // Keys may hold dots ("applicant.firstName"): of the keys that fit, the longest wins.
  let best: Step | undefined;
  for (const pair of collection.items) {
    const length = isScalar(pair.key) ? keyLength(String(pair.key.value), path) : undefined;
    if (length === undefined || (best && path.length - best.rest.length >= length)) continue;
    // The key's position, not its value's: "unknown key" and "missing value" point at the key.
    best = { node: pair.value, offset: offsetOf(pair.key), rest: path.slice(length) };
  }
  return best;
}

/**
 * Where the part of a document a path names ("buyers[2].caps.leadsPerDay",
 * 'buyers[0].integration.post.headers["X-Api-Key"]') starts in its source. When
 * the path goes on past what the document holds (a key that is missing), the
 * deepest part that exists: the map lacking the key. Undefined for a document
 * without content.
 */
export function locatePath(doc: Document, lineCounter: LineCounter, path: string): Position | undefined {
  let step: Step = { node: doc.contents, offset: offsetOf(doc.contents), rest: path.replace(/^\$/, '') };
  while (step.rest !== '') {
    const next = stepInto(doc, step.node, step.rest);
    if (!next) break;
    step = next;
  }
  if (step.offset === undefined) return undefined;
  const { line, col } = lineCounter.linePos(step.offset);
  return { line, column: col };
}
