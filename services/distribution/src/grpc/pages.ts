import { createHash } from 'node:crypto';
import { invalidField } from '../errors.js';

/** AIP-158: what a list request asks for. */
export interface PageRequest {
  pageSize: number;
  pageToken: string;
}

/** Where the next page starts: the sort key of the last item served. */
export type Cursor = readonly (string | number)[];

export interface Page<T> {
  items: T[];
  nextPageToken: string;
}

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;

/** The page size served: 0 = the default, anything over the maximum is the maximum. */
export function pageSizeOf(request: Pick<PageRequest, 'pageSize'>): number {
  if (!Number.isInteger(request.pageSize) || request.pageSize < 0)
    throw invalidField('page_size', 'must not be negative', { reason: 'INVALID_PAGE_SIZE' });
  return request.pageSize === 0 ? DEFAULT_PAGE_SIZE : Math.min(request.pageSize, MAX_PAGE_SIZE);
}

/** Ties a token to the list and filter it was made for, without showing them. */
function scopeDigest(scope: unknown): string {
  return createHash('sha256').update(JSON.stringify(scope)).digest('base64url').slice(0, 16);
}

function encodeToken(cursor: Cursor, scope: unknown): string {
  return Buffer.from(JSON.stringify({ c: cursor, s: scopeDigest(scope) })).toString('base64url');
}

/**
 * The cursor of a page token; undefined for the first page. INVALID_ARGUMENT (INVALID_PAGE_TOKEN)
 * for a token this list did not make with this `scope` (the list's name and its filter).
 */
export function cursorOf(request: PageRequest, scope: unknown): Cursor | undefined {
  if (request.pageToken === '') return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(request.pageToken, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const { c, s } = (decoded ?? {}) as { c?: unknown; s?: unknown };
  const cursorValid =
    Array.isArray(c) && c.length > 0 && c.every((part) => typeof part === 'string' || Number.isSafeInteger(part));
  if (!cursorValid || s !== scopeDigest(scope)) {
    throw invalidField('page_token', 'is not a token of this list with this filter: start again without one', {
      reason: 'INVALID_PAGE_TOKEN',
    });
  }
  return c as Cursor;
}

/**
 * A page from up to `size + 1` items read after the cursor: the extra one only says another page
 * follows, and the token points after the last item served.
 */
export function pageFrom<T>(read: T[], size: number, cursorOfItem: (item: T) => Cursor, scope: unknown): Page<T> {
  if (read.length <= size) return { items: read, nextPageToken: '' };
  const items = read.slice(0, size);
  return { items, nextPageToken: encodeToken(cursorOfItem(items[items.length - 1]!), scope) };
}

/** One page of a list held whole in memory, ordered by a unique string key. */
export function pageInMemory<T>(all: T[], keyOf: (item: T) => string, request: PageRequest, scope: unknown): Page<T> {
  const size = pageSizeOf(request);
  const after = cursorOf(request, scope)?.[0];
  const sorted = [...all].sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
  const rest = after === undefined ? sorted : sorted.filter((item) => keyOf(item) > String(after));
  return pageFrom(rest.slice(0, size + 1), size, (item) => [keyOf(item)], scope);
}
