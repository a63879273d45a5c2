import { ConfigError, type DistributionConfig, plaintextListenRefusal } from '@leadflow/service-kit/config';
import { grpcServerCredentials, type ServerTransportCredentials } from '@leadflow/service-kit/grpc-tls';
import type { Logger } from '@leadflow/service-kit/logger';
import { isLoopbackHost } from '@leadflow/service-kit/loopback';

/**
 * The listener's credentials, read before anything else starts. Plaintext beyond loopback is
 * refused here too, whatever built the config.
 */
export function listenerTransport(config: DistributionConfig): ServerTransportCredentials {
  const refusal = plaintextListenRefusal(config.grpcHost, config.grpcTransport);
  if (refusal) throw new ConfigError(refusal);
  return grpcServerCredentials(config.grpcTransport.tls);
}

/** How the port is guarded, once at start; a warning wherever that is less than mutual TLS beyond loopback. */
export function logListenerTransport(
  logger: Logger,
  config: DistributionConfig,
  transport: ServerTransportCredentials,
): void {
  const offLoopback = !isLoopbackHost(config.grpcHost);
  if (!transport.files) {
    if (offLoopback)
      logger.warn(
        { host: config.grpcHost },
        'gRPC is PLAINTEXT beyond loopback (LEADFLOW_GRPC_ALLOW_INSECURE_PLAINTEXT=1): only a network that encrypts by itself may carry it',
      );
    return;
  }
  logger.info(
    {
      tls: transport.mutual ? 'mutual' : 'server',
      certificateValidTo: transport.files.certificate?.validTo,
      gatewayIdentities: transport.mutual ? config.grpcTransport.gatewayIdentities : undefined,
    },
    'gRPC over TLS',
  );
  if (!transport.mutual && offLoopback)
    logger.warn(
      'no client certificates (LEADFLOW_GRPC_TLS_CLIENT_CA unset): any client that reaches the gRPC port can submit leads',
    );
}
