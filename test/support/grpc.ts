import { Metadata } from '@grpc/grpc-js';

export { callUnary as call } from '../../services/service-kit/src/grpc-unary.js';

export function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}
