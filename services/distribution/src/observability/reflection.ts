import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { protoPath as healthProtoPath } from 'grpc-health-check';

const PROTO_FILES = ['leadflow/distribution/v1/distribution.proto', 'leadflow/admin/v1/admin.proto'];
const HEALTH_PROTO_FILE = 'health/v1/health.proto';

/** The proto/ directory, from the sources or from dist/ (tsc does not copy .proto files). */
function protoRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, '../../../../proto'), path.join(here, '../../../../../proto')];
  const found = candidates.find((candidate) => existsSync(path.join(candidate, PROTO_FILES[0]!)));
  if (!found) throw new Error(`${PROTO_FILES[0]} not found under ${candidates.join(' or ')}`);
  return found;
}

/**
 * gRPC server reflection (v1 and v1alpha) describing the leadflow services and the health service,
 * so that grpcurl, grpcui and the like can list and call them without the .proto files.
 */
export function addReflection(server: Server): void {
  const healthRoot = path.resolve(path.dirname(healthProtoPath), '../..');
  const definition = loadSync([...PROTO_FILES, HEALTH_PROTO_FILE], { includeDirs: [protoRoot(), healthRoot] });
  new ReflectionService(definition).addToServer(server);
}
