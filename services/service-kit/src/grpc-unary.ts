import {
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  Metadata,
  type MethodDefinition,
  type ServiceError,
} from '@grpc/grpc-js';

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

/**
 * One unary call of `method` on `client` as a promise; rejects with the grpc-js ServiceError.
 * Deadlines, metadata and tracing come from the client's or the call's interceptors.
 */
export function callMethod<Req, Res>(
  client: Client,
  method: MethodDefinition<Req, Res>,
  request: Req,
  options: Partial<CallOptions> = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      method.path,
      method.requestSerialize,
      method.responseDeserialize,
      request,
      new Metadata(),
      options,
      (error, response) => (error ? reject(error) : resolve(response as Res)),
    );
  });
}
