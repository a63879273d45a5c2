import {
  type handleUnaryCall,
  type Server,
  type ServiceDefinition,
  status,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { DistributionMetrics } from './metrics.js';

/** The service's handlers, each unary one counting its answers by status code. */
function countingHandledCalls<Implementation extends UntypedServiceImplementation>(
  definition: ServiceDefinition<Implementation>,
  implementation: Implementation,
  metrics: DistributionMetrics,
): Implementation {
  const counted: UntypedServiceImplementation = { ...implementation };
  for (const [name, method] of Object.entries(definition)) {
    if (method.requestStream || method.responseStream) continue;
    const handler = implementation[name] as handleUnaryCall<unknown, unknown>;
    const methodName = method.path.slice(1);
    const countingHandler: handleUnaryCall<unknown, unknown> = (call, callback) =>
      handler(call, (error, ...rest) => {
        metrics.callHandled(methodName, error?.code ?? status.OK);
        callback(error, ...rest);
      });
    counted[name] = countingHandler;
  }
  return counted as Implementation;
}

/** `server.addService`, with every unary call counted by method and status code. */
export function countingAddService(server: Server, metrics: DistributionMetrics) {
  return <Implementation extends UntypedServiceImplementation>(
    definition: ServiceDefinition<Implementation>,
    implementation: Implementation,
  ): void => server.addService(definition, countingHandledCalls(definition, implementation, metrics));
}
