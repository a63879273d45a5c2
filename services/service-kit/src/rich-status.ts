import { Metadata } from '@grpc/grpc-js';
import type { Any } from '@leadflow/proto/google/protobuf/any';
import { BadRequest, ErrorInfo, RetryInfo } from '@leadflow/proto/google/rpc/error_details';
import { Status } from '@leadflow/proto/google/rpc/status';
import { durationOfMs, msOfDuration } from './proto-time.js';

/** The metadata key gRPC's rich error model travels in: a serialized google.rpc.Status. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
/** ErrorInfo.domain of every leadflow error. */
export const ERROR_DOMAIN = 'leadflow.io';

const TYPE_URL_PREFIX = 'type.googleapis.com/';

export interface RichStatus {
  code: number;
  message: string;
  errorInfo?: ErrorInfo;
  badRequest?: BadRequest;
  retryInfo?: RetryInfo;
}

interface DetailType<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

function packed<T>(name: string, type: DetailType<T>, message: T): Any {
  return { typeUrl: TYPE_URL_PREFIX + name, value: Buffer.from(type.encode(message).finish()) };
}

/** The trailers that carry `status` as google.rpc.Status with its details. */
export function richStatusMetadata(status: RichStatus): Metadata {
  const details: Any[] = [];
  if (status.errorInfo) details.push(packed('google.rpc.ErrorInfo', ErrorInfo, status.errorInfo));
  if (status.badRequest) details.push(packed('google.rpc.BadRequest', BadRequest, status.badRequest));
  if (status.retryInfo) details.push(packed('google.rpc.RetryInfo', RetryInfo, status.retryInfo));
  const metadata = new Metadata();
  metadata.set(
    STATUS_DETAILS_KEY,
    Buffer.from(Status.encode({ code: status.code, message: status.message, details }).finish()),
  );
  return metadata;
}

/** ErrorInfo, BadRequest and RetryInfo of a failed call's trailers; undefined without rich status. */
export function readRichStatus(metadata: Metadata | undefined): RichStatus | undefined {
  const raw = metadata?.get(STATUS_DETAILS_KEY)[0];
  if (!Buffer.isBuffer(raw)) return undefined;
  let decoded: Status;
  try {
    decoded = Status.decode(raw);
  } catch {
    return undefined;
  }
  const status: RichStatus = { code: decoded.code, message: decoded.message };
  for (const detail of decoded.details) {
    const name = detail.typeUrl.slice(detail.typeUrl.lastIndexOf('/') + 1);
    try {
      if (name === 'google.rpc.ErrorInfo') status.errorInfo = ErrorInfo.decode(detail.value);
      else if (name === 'google.rpc.BadRequest') status.badRequest = BadRequest.decode(detail.value);
      else if (name === 'google.rpc.RetryInfo') status.retryInfo = RetryInfo.decode(detail.value);
    } catch {
      // A detail this reader cannot decode is left out; the others still count.
    }
  }
  return status;
}

/** RetryInfo for a delay in milliseconds. */
export function retryAfter(ms: number): RetryInfo {
  return { retryDelay: durationOfMs(ms) };
}

/** A RetryInfo's delay in milliseconds. */
export function retryDelayMs(info: RetryInfo): number {
  return msOfDuration(info.retryDelay);
}
