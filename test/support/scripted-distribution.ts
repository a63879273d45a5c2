import {
  type Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import { leadFieldPath } from '@leadflow/core/lead-field-paths';
import type { LeadField } from '@leadflow/core/lead-fields';
import {
  type DistributionServiceServer,
  DistributionServiceService,
  type SubmitLeadRequest,
  type SubmitLeadResponse,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { ERROR_DOMAIN, richStatusMetadata } from '@leadflow/service-kit/rich-status';

export interface ScriptedFailure {
  code: status;
  details: string;
  /** Trailers, e.g. grpc-status-details-bin. */
  metadata?: Metadata;
}

/** The service's refusal of an invalid lead: INVALID_ARGUMENT with a field violation per field (JSON name -> message). */
export function invalidLead(errors: Partial<Record<LeadField, string>>): ScriptedFailure {
  const message = 'the lead is invalid';
  const fieldViolations = Object.entries(errors).map(([field, description]) => ({
    field: leadFieldPath(field as LeadField),
    description: description ?? '',
    reason: 'FIELD_INVALID',
    localizedMessage: undefined,
  }));
  const metadata = richStatusMetadata({
    code: status.INVALID_ARGUMENT,
    message,
    errorInfo: { reason: 'INVALID_LEAD', domain: ERROR_DOMAIN, metadata: {} },
    badRequest: { fieldViolations },
  });
  return { code: status.INVALID_ARGUMENT, details: message, metadata };
}

export type SubmitScript = (request: SubmitLeadRequest) => SubmitLeadResponse | ScriptedFailure;

export interface KnownKey {
  publisherId: string;
  rateLimitPerMinute: number;
}

export const SOLD: SubmitLeadResponse = {
  outcome: {
    $case: 'sold',
    value: { leadId: 'lead-1', payoutCents: 1250, buyerId: 'buyer-1', redirectUrl: 'https://buyer.example/r/1' },
  },
  buyerWait: { seconds: 0, nanos: 3_000_000 },
  replayed: false,
};

function isFailure(answer: SubmitLeadResponse | ScriptedFailure): answer is ScriptedFailure {
  return 'code' in answer;
}

/**
 * A real grpc-js DistributionService on 127.0.0.1 with scripted answers: keys
 * come from `keys`, SubmitLead answers with `submit` after `submitDelayMs`.
 * Every call is recorded with its metadata.
 */
export class ScriptedDistribution {
  readonly keys = new Map<string, KnownKey>();
  submit: SubmitScript = () => SOLD;
  submitDelayMs = 0;
  readonly submitCalls: Array<{ request: SubmitLeadRequest; metadata: Metadata }> = [];
  readonly resolveCalls: string[] = [];

  private readonly server = new Server();
  private port = 0;

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const implementation: DistributionServiceServer = {
      submitLead: (
        call: ServerUnaryCall<SubmitLeadRequest, SubmitLeadResponse>,
        callback: sendUnaryData<SubmitLeadResponse>,
      ) => {
        this.submitCalls.push({ request: call.request, metadata: call.metadata });
        const answer = this.submit(call.request);
        setTimeout(() => {
          if (isFailure(answer)) callback(answer);
          else callback(null, answer);
        }, this.submitDelayMs);
      },
      resolvePublisherKey: (call, callback) => {
        this.resolveCalls.push(call.request.webmasterKey);
        const known = this.keys.get(call.request.webmasterKey);
        callback(null, known ? { valid: true, ...known } : { valid: false, publisherId: '', rateLimitPerMinute: 0 });
      },
      getLeadStatus: (_call, callback) => {
        callback({ code: status.UNIMPLEMENTED, details: 'not scripted' });
      },
    };
    this.server.addService(DistributionServiceService, implementation);
    this.port = await new Promise<number>((resolve, reject) => {
      this.server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) =>
        error ? reject(error) : resolve(port),
      );
    });
  }

  /** Back to the default script, with no calls recorded. */
  reset(): void {
    this.submit = () => SOLD;
    this.submitDelayMs = 0;
    this.submitCalls.length = 0;
    this.resolveCalls.length = 0;
  }

  stop(): void {
    this.server.forceShutdown();
  }
}
