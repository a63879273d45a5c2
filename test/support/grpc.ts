import { Metadata } from '@grpc/grpc-js';

export { callUnary as call } from '@leadflow/service-kit/grpc-unary';

export function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}
