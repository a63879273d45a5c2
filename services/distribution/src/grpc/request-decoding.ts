import { BinaryReader } from '@bufbuild/protobuf/wire';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { StatusError } from '../errors.js';

/** ErrorInfo reason of a request whose bytes are not a message of its method's request type. */
const MALFORMED_REQUEST = 'MALFORMED_REQUEST';

/** An int64 the generated code cannot hold in a number without losing digits. */
class IntegerOutOfRange extends Error {}

/** A reader that refuses an int64 beyond ±(2^53 - 1) by its own error, before the generated code throws a generic one. */
class RequestReader extends BinaryReader {
  override int64(): bigint | string {
    const value = super.int64();
    if (!Number.isSafeInteger(Number(value))) throw new IntegerOutOfRange();
    return value;
  }
}

/** What a deserializer hands on in place of a request it could not read: the refusal the handler answers. */
class UnreadableRequest {
  constructor(readonly refusal: StatusError) {}
}

function malformed(message: string): UnreadableRequest {
  return new UnreadableRequest(new StatusError('invalid_argument', message, { reason: MALFORMED_REQUEST }));
}

function readSafely<T>(deserialize: (bytes: Buffer) => T): (bytes: Buffer) => T | UnreadableRequest {
  return (bytes) => {
    try {
      // ts-proto's deserializers hand their argument to `decode`, which reads on with a reader it is given.
      return deserialize(new RequestReader(bytes) as unknown as Buffer);
    } catch (error) {
      if (error instanceof IntegerOutOfRange)
        return malformed('an integer field is beyond ±2^53 (9007199254740991), the largest value read exactly');
      return malformed('the request is not a protobuf message of the method’s request type');
    }
  };
}

/**
 * The service with deserializers that never throw. grpc-js answers a throwing one INTERNAL, "Error
 * deserializing request", with no details and before any handler runs; these hand an UnreadableRequest
 * to the handler instead, which `unary` answers INVALID_ARGUMENT (MALFORMED_REQUEST).
 */
export function readingRequestsSafely<S extends ServiceDefinition>(service: S): S {
  return Object.fromEntries(
    Object.entries(service).map(([name, method]) => [
      name,
      { ...method, requestDeserialize: readSafely(method.requestDeserialize) },
    ]),
  ) as S;
}

/** The refusal of a request its deserializer could not read; undefined for a request read whole. */
export function refusalOfUnreadable(request: unknown): StatusError | undefined {
  return request instanceof UnreadableRequest ? request.refusal : undefined;
}
