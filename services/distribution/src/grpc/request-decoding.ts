import { BinaryReader } from '@bufbuild/protobuf/wire';
import type { ServiceDefinition } from '@grpc/grpc-js';
import { protoFieldName } from '@leadflow/core/lead-field-paths';
import { StatusError } from '../errors.js';

/** ErrorInfo reason of a request whose bytes are not a message of its method's request type. */
const MALFORMED_REQUEST = 'MALFORMED_REQUEST';

/** An int64 the generated code cannot hold in a number without losing digits. */
class IntegerOutOfRange extends Error {}

/** What a string field whose bytes are not UTF-8 reads as: a lone surrogate, which no UTF-8 decodes to. */
const NOT_UTF8 = '\uD800';

/**
 * A reader that refuses an int64 beyond ±(2^53 - 1) by its own error, before the generated code throws a
 * generic one, and reads a string that is not UTF-8 as NOT_UTF8 (the default puts U+FFFD in its place),
 * so that the field it was in can be named.
 */
class RequestReader extends BinaryReader {
  notUtf8 = false;

  override int64(): bigint | string {
    const value = super.int64();
    if (!Number.isSafeInteger(Number(value))) throw new IntegerOutOfRange();
    return value;
  }

  override string(): string {
    try {
      // Strict: the text decoder throws on bytes that are not UTF-8, after the reader moved past them.
      return super.string(true);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ERR_ENCODING_INVALID_ENCODED_DATA') throw error;
      this.notUtf8 = true;
      return NOT_UTF8;
    }
  }
}

/** The proto paths of the string fields read as NOT_UTF8 in `value`: `lead.first_name`, `non_string_fields[1]`. */
function notUtf8Paths(value: unknown, path: string): string[] {
  if (value === NOT_UTF8) return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => notUtf8Paths(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([name, item]) =>
    notUtf8Paths(item, path === '' ? protoFieldName(name) : `${path}.${protoFieldName(name)}`),
  );
}

/** Proto3 strings are UTF-8: text that is not was replaced by U+FFFD, and two different leads read alike. */
function notUtf8(request: unknown): UnreadableRequest {
  const fields = notUtf8Paths(request, '');
  return new UnreadableRequest(
    new StatusError('invalid_argument', `${fields.join(', ')} must be valid UTF-8`, {
      reason: MALFORMED_REQUEST,
      violations: fields.map((field) => ({ field, description: 'is not valid UTF-8', reason: 'FIELD_NOT_UTF8' })),
    }),
  );
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
      const reader = new RequestReader(bytes);
      // ts-proto's deserializers hand their argument to `decode`, which reads on with a reader it is given.
      const request = deserialize(reader as unknown as Buffer);
      return reader.notUtf8 ? notUtf8(request) : request;
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
