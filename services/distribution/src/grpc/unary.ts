import { type handleUnaryCall, type Metadata, type ServerUnaryCall, status } from '@grpc/grpc-js';
import type { Logger } from '@leadflow/service-kit/logger';
import { rpcCallAttributes, rpcStatusAttributes } from '@leadflow/service-kit/rpc-span-attributes';
import { extractTraceContext } from '@leadflow/service-kit/telemetry';
import { context, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { failedCallStatus, failureOf, internalFailure } from './call-failure.js';
import { refusalOfUnreadable } from './request-decoding.js';

/** When the caller needs the answer, in epoch ms. */
export function answerBy(call: ServerUnaryCall<unknown, unknown>): number {
  const deadline = call.getDeadline();
  return deadline instanceof Date ? deadline.getTime() : deadline;
}

/**
 * Adapts an async handler to grpc-js: a SERVER span joined to the caller's
 * trace, StatusErrors as their status codes, anything else as INTERNAL with a
 * generic message (logged by name and code only: driver errors can quote SQL
 * parameters). A request its deserializer could not read (request-decoding.ts)
 * is refused without running the handler.
 */
export function unary<Req, Res>(
  method: string,
  tracer: Tracer,
  logger: Logger,
  handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>,
): handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const parent = extractTraceContext(call.metadata as Metadata);
    context.with(parent, () =>
      tracer.startActiveSpan(method, { kind: SpanKind.SERVER, attributes: rpcCallAttributes(method) }, (span) => {
        const refusal = refusalOfUnreadable(call.request);
        (refusal ? Promise.reject(refusal) : handler(call.request, call)).then(
          (response) => {
            span.setAttributes(rpcStatusAttributes(status.OK));
            span.end();
            callback(null, response);
          },
          (error: unknown) => {
            const failure = failureOf(error);
            const answer = failure ? failedCallStatus(failure) : internalFailure();
            const code = answer.code;
            if (!failure) {
              const { name, code: driverCode } = error as { name?: string; code?: unknown };
              logger.error({ method, error: { name, code: driverCode } }, 'request failed');
            }
            span.setAttributes(rpcStatusAttributes(code));
            span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
            callback(answer);
          },
        );
      }),
    );
  };
}

/** Unary methods of one service, each wrapped by `unary` under its full name. */
export function unaryMethods(service: string, tracer: Tracer, logger: Logger) {
  return <Req, Res>(name: string, handler: (request: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>) =>
    unary<Req, Res>(`${service}/${name}`, tracer, logger, handler);
}

export type UnaryMethods = ReturnType<typeof unaryMethods>;
