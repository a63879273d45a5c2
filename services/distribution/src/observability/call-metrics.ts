import {
  type Deadline,
  type Server,
  ServerInterceptingCall,
  type ServerInterceptor,
  ServerListenerBuilder,
  status,
} from '@grpc/grpc-js';
import type { DistributionMetrics } from './metrics.js';

/** The method label of calls to a method the server does not serve: a bounded label, whatever the path. */
export const UNKNOWN_METHOD = 'unknown';

/**
 * A caller whose deadline passes cancels the call itself, and the server's copy of the deadline runs
 * from when the request arrived: the cancellation can come in just before the server's deadline. One
 * that close to it is the deadline, not a caller giving up.
 */
const DEADLINE_SLACK_MS = 100;

function passed(deadline: Deadline): boolean {
  const at = deadline instanceof Date ? deadline.getTime() : deadline;
  return Number.isFinite(at) && at <= Date.now() + DEADLINE_SLACK_MS;
}

/**
 * Counts every unary call by method and the status the caller got, including those grpc-js ends
 * itself: past their deadline, cancelled by the caller, or refused for size before a handler ran.
 * Those end without the handler's status passing through: they show as a cancellation that comes
 * first, told apart by the deadline and by whether the request message arrived.
 */
export function callMetricsInterceptor(metrics: DistributionMetrics): ServerInterceptor {
  return (method, call) => {
    if (method.requestStream || method.responseStream) return new ServerInterceptingCall(call);
    const name = method.path.slice(1);
    let counted = false;
    let requestArrived = false;
    const count = (code: status) => {
      if (counted) return;
      counted = true;
      metrics.callHandled(name, code);
    };
    return new ServerInterceptingCall(call, {
      start(next) {
        next(
          new ServerListenerBuilder()
            .withOnReceiveMessage((message, nextMessage) => {
              requestArrived = true;
              nextMessage(message);
            })
            // After a status went out this changes nothing: the call is counted already. Before, a
            // unary request that never arrived was refused by the transport: over the size limit.
            .withOnCancel(() =>
              count(
                passed(call.getDeadline())
                  ? status.DEADLINE_EXCEEDED
                  : requestArrived
                    ? status.CANCELLED
                    : status.RESOURCE_EXHAUSTED,
              ),
            )
            .build(),
        );
      },
      sendStatus(answer, next) {
        count(answer.code);
        next(answer);
      },
    });
  };
}

interface HandlerLookup {
  _retrieveHandler(path: string): unknown;
}

/**
 * grpc-js answers a method it does not serve UNIMPLEMENTED before any interceptor runs; the one
 * place that sees it is its handler lookup (an internal of grpc-js ~1.14, checked by a test).
 */
export function countUnknownMethods(server: Server, metrics: DistributionMetrics): void {
  const lookup = server as unknown as HandlerLookup;
  if (typeof lookup._retrieveHandler !== 'function') return;
  const retrieve = lookup._retrieveHandler.bind(server);
  lookup._retrieveHandler = (path) => {
    const handler = retrieve(path);
    if (handler === null) metrics.callHandled(UNKNOWN_METHOD, status.UNIMPLEMENTED);
    return handler;
  };
}
