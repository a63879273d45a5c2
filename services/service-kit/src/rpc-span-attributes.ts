import { status } from '@grpc/grpc-js';
import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_RPC_METHOD,
  ATTR_RPC_STATUS_CODE,
  ATTR_RPC_SYSTEM_NAME,
  RPC_SYSTEM_NAME_VALUE_GRPC,
} from '@opentelemetry/semantic-conventions';

/**
 * gRPC span attributes as the stable RPC semantic conventions spell them (@opentelemetry/semantic-conventions
 * 1.45: `rpc.system.name`, `rpc.method`, `rpc.status_code` as the code's name), the same on the gateway's
 * CLIENT spans and the service's SERVER spans, so one query finds both ends of a call.
 */
export function rpcCallAttributes(method: string): Attributes {
  return { [ATTR_RPC_SYSTEM_NAME]: RPC_SYSTEM_NAME_VALUE_GRPC, [ATTR_RPC_METHOD]: method };
}

/** The call's outcome: its status code by name, and `error.type` too when it is not OK. */
export function rpcStatusAttributes(code: status): Attributes {
  const name = status[code] ?? String(code);
  return code === status.OK
    ? { [ATTR_RPC_STATUS_CODE]: name }
    : { [ATTR_RPC_STATUS_CODE]: name, [ATTR_ERROR_TYPE]: name };
}
