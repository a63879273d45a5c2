import type { Metadata } from '@grpc/grpc-js';
import { StatusError } from '../errors.js';
import { adminTokenMatches } from '../security/admin-token.js';

/** Throws unless the call carries `authorization: Bearer <admin token>`. */
export function requireAdmin(metadata: Metadata, adminToken: string): void {
  const header = metadata.get('authorization')[0];
  const presented = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  if (!presented) throw new StatusError('unauthenticated', 'admin token required', { reason: 'ADMIN_TOKEN_REQUIRED' });
  if (!adminTokenMatches(adminToken, presented))
    throw new StatusError('permission_denied', 'admin token not accepted', { reason: 'ADMIN_TOKEN_REJECTED' });
}
