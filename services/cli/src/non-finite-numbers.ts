import { indexPath, keyPath } from '@leadflow/distribution';
import type { DocumentError } from '@leadflow/proto/leadflow/admin/v1/admin';

/**
 * The numbers of a document that JSON, the form the service takes it in, cannot carry: NaN and the
 * infinities (YAML's `.nan` and `.inf`, a JSON `1e400`). JSON.stringify writes them as null, which a
 * buyer file reads as "not set", so each is a mistake at its path, named as the service names paths.
 */
export function nonFiniteNumbers(value: unknown, path = ''): DocumentError[] {
  if (typeof value === 'number') return Number.isFinite(value) ? [] : [{ path, message: 'must be a finite number' }];
  if (Array.isArray(value)) return value.flatMap((item, index) => nonFiniteNumbers(item, indexPath(path, index)));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => nonFiniteNumbers(item, keyPath(path, key)));
}
