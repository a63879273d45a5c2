import type { CallOptions, ChannelCredentials, ServiceError } from '@grpc/grpc-js';
import {
  DistributionServiceClient,
  DistributionServiceService,
  type GetLeadStatusRequest,
  type GetLeadStatusResponse,
  type ResolvePublisherKeyResponse,
  type SubmitLeadRequest,
  type SubmitLeadResponse,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { callMethod } from '@leadflow/service-kit/grpc-unary';
import { type Context, isSpanContextValid, trace } from '@opentelemetry/api';
import { clientSpanInterceptor } from './client-span.js';

/** Key resolution is a cached lookup on the service side: it answers fast or not at all. */
const RESOLVE_KEY_DEADLINE_MS = 1000;
/** A lead's status is one indexed read. */
const LEAD_STATUS_DEADLINE_MS = 2000;

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
 * deadline and, when the request is traced, inside a CLIENT span (see clientSpanInterceptor).
 */
export class DistributionCalls {
  constructor(
    private readonly client: DistributionServiceClient,
    private readonly intakeDeadlineMs: number,
  ) {}

  submitLead(request: SubmitLeadRequest, parent: Context): Promise<SubmitLeadResponse> {
    return callMethod(
      this.client,
      DistributionServiceService.submitLead,
      request,
      this.options(parent, this.intakeDeadlineMs),
    );
  }

  resolvePublisherKey(webmasterKey: string, parent: Context): Promise<ResolvePublisherKeyResponse> {
    return callMethod(
      this.client,
      DistributionServiceService.resolvePublisherKey,
      { webmasterKey },
      this.options(parent, RESOLVE_KEY_DEADLINE_MS),
    );
  }

  getLeadStatus(request: GetLeadStatusRequest, parent: Context): Promise<GetLeadStatusResponse> {
    return callMethod(
      this.client,
      DistributionServiceService.getLeadStatus,
      request,
      this.options(parent, LEAD_STATUS_DEADLINE_MS),
    );
  }

  /**
   * Per call, as the client may be the caller's own (built without interceptors). A request with no trace
   * (tracing off) gets no span: there is nothing to record or to carry, and every interceptor costs.
   */
  private options(parent: Context, deadlineMs: number): Partial<CallOptions> {
    const deadline = Date.now() + deadlineMs;
    const spanContext = trace.getSpanContext(parent);
    return spanContext !== undefined && isSpanContextValid(spanContext)
      ? { deadline, interceptors: [clientSpanInterceptor(tracer, parent)] }
      : { deadline };
  }
}
