import { type CallOptions, type ClientUnaryCall, Metadata, type ServiceError } from '@grpc/grpc-js';

/** A grpc-js client's unary method, bound to its client. */
export type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/** One unary call as a promise; rejects with the grpc-js ServiceError. */
export function callUnary<Req, Res>(
  method: UnaryMethod<Req, Res>,
  request: Req,
  metadata: Metadata = new Metadata(),
  options: Partial<CallOptions> = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    method(request, metadata, options, (error, response) => (error ? reject(error) : resolve(response)));
  });
}
