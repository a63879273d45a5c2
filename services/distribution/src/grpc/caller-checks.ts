import { ServerInterceptingCall, type ServerInterceptor, ServerListenerBuilder } from '@grpc/grpc-js';
import { AdminServiceService } from '@leadflow/proto/leadflow/admin/v1/admin';
import { DistributionServiceService } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import type { Logger } from '@leadflow/service-kit/logger';
import { StatusError } from '../errors.js';
import { caller } from './admin-audit.js';
import { requireAdmin } from './admin-auth.js';
import { failedCallStatus } from './call-failure.js';
import { type GatewayIdentities, requireGateway } from './caller-identity.js';

export interface CallerChecks {
  adminToken: string;
  /** Who may call the gateway's methods (see requireGateway). */
  gatewayIdentities: GatewayIdentities;
  /** Admin calls refused here get their audit line at warn, as the handlers never run. */
  logger: Logger;
}

const ADMIN_PREFIX = AdminServiceService.listPublishers.path.slice(
  0,
  AdminServiceService.listPublishers.path.lastIndexOf('/') + 1,
);
const GATEWAY_PREFIX = DistributionServiceService.submitLead.path.slice(
  0,
  DistributionServiceService.submitLead.path.lastIndexOf('/') + 1,
);

/**
 * Who may call what, checked when the call's metadata arrives, before any handler runs: the admin
 * service needs the admin token, the gateway's service a gateway's client certificate (with mutual
 * TLS). Health and reflection are open. A refused call ends with its AIP-193 status.
 */
export function callerChecksInterceptor(checks: CallerChecks): ServerInterceptor {
  return (method, call) => {
    const admin = method.path.startsWith(ADMIN_PREFIX);
    const gateway = method.path.startsWith(GATEWAY_PREFIX);
    if (!admin && !gateway) return new ServerInterceptingCall(call);
    return new ServerInterceptingCall(call, {
      start(next) {
        next(
          new ServerListenerBuilder()
            .withOnReceiveMetadata((metadata, nextMetadata) => {
              try {
                if (admin) requireAdmin(metadata, checks.adminToken);
                else requireGateway(call, checks.gatewayIdentities);
              } catch (error) {
                if (!(error instanceof StatusError)) throw error;
                if (admin) {
                  const name = method.path.slice(ADMIN_PREFIX.length);
                  checks.logger.warn({ method: name, caller: caller(call), outcome: error.code }, 'admin action');
                }
                // The handler never starts: the call ends here.
                call.sendStatus(failedCallStatus(error));
                return;
              }
              nextMetadata(metadata);
            })
            .build(),
        );
      },
    });
  };
}
