import { type ChannelCredentials, Metadata, type ServiceError, status } from '@grpc/grpc-js';
import { type Context, context as otelContext, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR_RPC_METHOD, ATTR_RPC_STATUS_CODE, ATTR_RPC_SYSTEM_NAME } from '@opentelemetry/semantic-conventions';
import {
  DistributionServiceClient,
  DistributionServiceService,
  type ResolvePublisherKeyResponse,
  type SubmitLeadRequest,
  type SubmitLeadResponse,
} from '../../../proto/generated/leadflow/distribution/v1/distribution.js';
import { callUnary, type UnaryMethod } from '../../../services/common/grpc-unary.js';
import { injectTraceContext } from '../../../services/common/telemetry.js';

/** Key resolution is a cached lookup on the service side: it answers fast or not at all. */
const RESOLVE_KEY_DEADLINE_MS = 1000;

const tracer = trace.getTracer('leadflow-gateway');

export function createDistributionClient(
  address: string,
  channelCredentials: ChannelCredentials,
): DistributionServiceClient {
  return new DistributionServiceClient(address, channelCredentials, {
    // A restarted distribution service is picked up within seconds, not after grpc-js's default 2-minute backoff.
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 2000,
    // Spread calls over every address the target resolves to (dns:///distribution:50051 with
    // several instances behind it), not grpc-js's default of one connection to the first.
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  });
}

export function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number' && 'metadata' in error;
}

/**
 * The gateway's calls to the distribution service, as promises, each with a
 * deadline and inside a CLIENT span whose context travels in the metadata, so
 * the service's spans join the caller's trace.
 */
export class DistributionCalls {
  constructor(
    private readonly client: DistributionServiceClient,
    private readonly intakeDeadlineMs: number,
  ) {}

  submitLead(request: SubmitLeadRequest, parent: Context): Promise<SubmitLeadResponse> {
    return this.call(
      DistributionServiceService.submitLead.path,
      this.client.submitLead.bind(this.client),
      request,
      this.intakeDeadlineMs,
      parent,
    );
  }

  resolvePublisherKey(webmasterKey: string, parent: Context): Promise<ResolvePublisherKeyResponse> {
    return this.call(
      DistributionServiceService.resolvePublisherKey.path,
      this.client.resolvePublisherKey.bind(this.client),
      { webmasterKey },
      RESOLVE_KEY_DEADLINE_MS,
      parent,
    );
  }

  private call<Req, Res>(
    path: string,
    method: UnaryMethod<Req, Res>,
    request: Req,
    deadlineMs: number,
    parent: Context,
  ): Promise<Res> {
    const rpcMethod = path.slice(1);
    const span = tracer.startSpan(
      rpcMethod,
      { kind: SpanKind.CLIENT, attributes: { [ATTR_RPC_SYSTEM_NAME]: 'grpc', [ATTR_RPC_METHOD]: rpcMethod } },
      parent,
    );
    const callContext = trace.setSpan(parent, span);
    const metadata = injectTraceContext(callContext, new Metadata());
    const ended = (code: status) => {
      span.setAttribute(ATTR_RPC_STATUS_CODE, status[code]);
      if (code !== status.OK) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    return otelContext
      .with(callContext, () => callUnary(method, request, metadata, { deadline: Date.now() + deadlineMs }))
      .then(
        (response) => {
          ended(status.OK);
          return response;
        },
        (error: ServiceError) => {
          ended(error.code);
          throw error;
        },
      );
  }
}
