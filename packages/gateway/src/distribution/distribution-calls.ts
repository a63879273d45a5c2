import type { CallOptions, ChannelCredentials, Interceptor, ServiceError } from '@grpc/grpc-js';
import {
  DistributionServiceClient,
  DistributionServiceService,
  type ResolvePublisherKeyResponse,
  type SubmitLeadRequest,
  type SubmitLeadResponse,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { deadlineInterceptor } from '@leadflow/service-kit/grpc-client-interceptors';
import { callMethod } from '@leadflow/service-kit/grpc-unary';
import { type Context, trace } from '@opentelemetry/api';
import { clientSpanInterceptor } from './client-span.js';

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
 * deadline and inside a CLIENT span (see clientSpanInterceptor).
 */
export class DistributionCalls {
  private readonly deadline: Interceptor;

  constructor(
    private readonly client: DistributionServiceClient,
    intakeDeadlineMs: number,
  ) {
    this.deadline = deadlineInterceptor((path) =>
      path === DistributionServiceService.submitLead.path ? intakeDeadlineMs : RESOLVE_KEY_DEADLINE_MS,
    );
  }

  submitLead(request: SubmitLeadRequest, parent: Context): Promise<SubmitLeadResponse> {
    return callMethod(this.client, DistributionServiceService.submitLead, request, this.options(parent));
  }

  resolvePublisherKey(webmasterKey: string, parent: Context): Promise<ResolvePublisherKeyResponse> {
    return callMethod(
      this.client,
      DistributionServiceService.resolvePublisherKey,
      { webmasterKey },
      this.options(parent),
    );
  }

  /** Per call, as the client may be the caller's own (built without these interceptors). */
  private options(parent: Context): Partial<CallOptions> {
    return { interceptors: [this.deadline, clientSpanInterceptor(tracer, parent)] };
  }
}
