import { TtlCache } from '@leadflow/service-kit/ttl-cache';
import type { FieldValue } from './field-transforms.js';

export type BodyEntry = readonly [key: string, value: FieldValue];

/** The mapping keys of the buyers' exchanges, split once. */
const SEGMENTS = new TtlCache<string, readonly string[]>(Number.POSITIVE_INFINITY, 4096);

/** A mapping key's dotted segments, kept: the same keys make up every lead's body. */
function keySegments(key: string): readonly string[] {
  let segments = SEGMENTS.get(key);
  if (!segments) {
    segments = key.split('.');
    SEGMENTS.set(key, segments);
  }
  return segments;
}

/**
 * The first mapping key that cannot live in one JSON object next to the others: one with an empty
 * path segment ("a..b"), or one nested under another key's value ("applicant.name" next to
 * "applicant"). undefined when they all fit.
 */
export function conflictingJsonKey(keys: readonly string[]): string | undefined {
  const all = new Set(keys);
  for (const key of keys) {
    const segments = keySegments(key);
    if (segments.includes('')) return key;
    for (let depth = 1; depth < segments.length; depth++) {
      if (all.has(segments.slice(0, depth).join('.'))) return key;
    }
  }
  return undefined;
}

/**
 * A JSON object with dotted keys as nested objects ("applicant.name.first" -> {applicant: {name:
 * {first}}}), in mapping order. The keys must be free of conflicts (see conflictingJsonKey).
 */
export function jsonBody(entries: readonly BodyEntry[]): string {
  // Null-prototype objects: a key such as "__proto__" is then a plain property, never the prototype.
  const root: Record<string, unknown> = Object.create(null);
  for (const [key, value] of entries) {
    const path = keySegments(key);
    let node = root;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const segment = path[depth]!;
      node[segment] ??= Object.create(null);
      node = node[segment] as Record<string, unknown>;
    }
    node[path[path.length - 1]!] = value;
  }
  return JSON.stringify(root);
}

/** application/x-www-form-urlencoded, keys taken as they are (dots included). */
export function formBody(entries: readonly BodyEntry[]): string {
  return new URLSearchParams(entries.map(([key, value]): [string, string] => [key, String(value)])).toString();
}

/**
 * The URL with the entries appended to its query string, encoded as a form is; a query the URL
 * already has is kept byte for byte, and a fragment (never sent) is dropped.
 */
export function queryUrl(url: string, entries: readonly BodyEntry[]): string {
  const [withoutFragment] = url.split('#', 1);
  const added = formBody(entries);
  if (added === '') return withoutFragment;
  const separator = !withoutFragment.includes('?')
    ? '?'
    : withoutFragment.endsWith('?') || withoutFragment.endsWith('&')
      ? ''
      : '&';
  return `${withoutFragment}${separator}${added}`;
}
