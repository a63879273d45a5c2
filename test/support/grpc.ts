import { type Client, Metadata } from '@grpc/grpc-js';

export { callUnary as call } from '@leadflow/service-kit/grpc-unary';

export function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** One unary call of `path` on `client` with `request` as its bytes (a hand-encoded message): the answer's bytes. */
export function callWithBytes(
  client: Client,
  path: string,
  request: Buffer,
  metadata = new Metadata(),
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (message: Buffer) => message,
      (message: Buffer) => message,
      request,
      metadata,
      { deadline: Date.now() + 10_000 },
      (error, response) => (error ? reject(error) : resolve(response!)),
    );
  });
}
