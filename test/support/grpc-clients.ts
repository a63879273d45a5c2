import { createRequire } from 'node:module';
import path from 'node:path';
import {
  type Client,
  type ClientDuplexStream,
  type ClientReadableStream,
  credentials,
  loadPackageDefinition,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';

const LOADER_OPTIONS = { keepCase: true, enums: String, defaults: true, oneofs: true };

type ClientConstructor<T> = new (address: string, creds: ReturnType<typeof credentials.createInsecure>) => T;

function clientConstructor(protoFile: string, qualifiedName: string): ClientConstructor<Client> {
  // biome-ignore lint/suspicious/noExplicitAny: a loaded package definition, walked by name
  let node: any = loadPackageDefinition(loadSync(protoFile, LOADER_OPTIONS));
  for (const part of qualifiedName.split('.')) node = node[part];
  return node;
}

export interface HealthClient extends Client {
  Check(
    request: { service: string },
    callback: (error: ServiceError | null, response: { status: string }) => void,
  ): void;
  Watch(request: { service: string }): ClientReadableStream<{ status: string }>;
}

/** A grpc.health.v1.Health client built from grpc-health-check's own .proto. */
export function healthClient(address: string): HealthClient {
  const Health = clientConstructor(healthProtoPath, 'grpc.health.v1.Health') as ClientConstructor<HealthClient>;
  return new Health(address, credentials.createInsecure());
}

export function check(client: HealthClient, service: string): Promise<string> {
  return new Promise((resolve, reject) =>
    client.Check({ service }, (error, response) => (error ? reject(error) : resolve(response.status))),
  );
}

export interface ReflectionClient extends Client {
  // biome-ignore lint/suspicious/noExplicitAny: reflection responses are read field by field
  ServerReflectionInfo(): ClientDuplexStream<Record<string, unknown>, any>;
}

/** A grpc.reflection.v1 (or v1alpha) ServerReflection client built from @grpc/reflection's .proto. */
export function reflectionClient(address: string, version: 'v1' | 'v1alpha' = 'v1'): ReflectionClient {
  const packageDir = path.dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json'));
  const protoFile = path.join(packageDir, `build/proto/grpc/reflection/${version}/reflection.proto`);
  const Reflection = clientConstructor(
    protoFile,
    `grpc.reflection.${version}.ServerReflection`,
  ) as ClientConstructor<ReflectionClient>;
  return new Reflection(address, credentials.createInsecure());
}

/** One request on a reflection stream, its one response. */
// biome-ignore lint/suspicious/noExplicitAny: reflection responses are read field by field
export function reflect(client: ReflectionClient, request: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const stream = client.ServerReflectionInfo();
    stream.once('data', (response) => {
      stream.end();
      resolve(response);
    });
    stream.once('error', reject);
    stream.write(request);
  });
}
