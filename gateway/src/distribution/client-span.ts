import { InterceptingCall, type Interceptor, status } from '@grpc/grpc-js';
import { rpcCallAttributes, rpcStatusAttributes } from '@leadflow/service-kit/rpc-span-attributes';
import { injectTraceContext } from '@leadflow/service-kit/telemetry';
import { type Context, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

/**
 * Wraps a call in a CLIENT span under `parent` whose context travels in the metadata, so the
 * service's spans join the caller's trace; the span ends with the call's status.
 */
export function clientSpanInterceptor(tracer: Tracer, parent: Context): Interceptor {
  return (options, nextCall) => {
    const rpcMethod = options.method_definition.path.slice(1);
    const span = tracer.startSpan(
      rpcMethod,
      { kind: SpanKind.CLIENT, attributes: rpcCallAttributes(rpcMethod) },
      parent,
    );
    return new InterceptingCall(nextCall(options), {
      start(metadata, _listener, next) {
        next(injectTraceContext(trace.setSpan(parent, span), metadata), {
          onReceiveStatus(callStatus, nextStatus) {
            span.setAttributes(rpcStatusAttributes(callStatus.code));
            if (callStatus.code !== status.OK) span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
            nextStatus(callStatus);
          },
        });
      },
    });
  };
}
