import type { Server, ServerWritableStream, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { HealthImplementation, type ServingStatus } from 'grpc-health-check';

/**
 * The standard gRPC health service (grpc.health.v1.Health) for the server as a whole ("") and each
 * named service: NOT_SERVING until `serve()`, and again from `drain()` on.
 */
export class ServingHealth {
  private readonly health: HealthImplementation;
  private readonly watches = new Set<ServerWritableStream<unknown, unknown>>();
  private serving = false;

  constructor(private readonly services: readonly string[]) {
    this.health = new HealthImplementation(Object.fromEntries(['', ...services].map((name) => [name, 'NOT_SERVING'])));
  }

  addToServer(server: Server): void {
    this.health.addToServer({
      addService: (definition, implementation) =>
        server.addService(definition as unknown as ServiceDefinition, this.trackingWatches(implementation)),
    });
  }

  serve(): void {
    this.serving = true;
    this.setAll('SERVING');
  }

  /** Between `serve()` and `drain()`. */
  isServing(): boolean {
    return this.serving;
  }

  /**
   * Tells watchers NOT_SERVING, then ends their streams: a Watch never ends by itself, and the
   * server's graceful shutdown would wait on it until forced.
   */
  drain(): void {
    this.serving = false;
    this.setAll('NOT_SERVING');
    for (const call of this.watches) call.end();
    this.watches.clear();
  }

  private setAll(status: ServingStatus): void {
    for (const name of ['', ...this.services]) this.health.setStatus(name, status);
  }

  private trackingWatches(implementation: UntypedServiceImplementation): UntypedServiceImplementation {
    const watch = implementation.watch as (call: ServerWritableStream<unknown, unknown>) => void;
    return {
      ...implementation,
      watch: (call: ServerWritableStream<unknown, unknown>) => {
        this.watches.add(call);
        call.on('cancelled', () => this.watches.delete(call));
        watch(call);
      },
    };
  }
}
