/** Where `npm run generate` writes the descriptor sets, from the repository root: this package's files. */
export const DESCRIPTOR_SET_DIRECTORY = 'proto/descriptor-sets';

export interface DescriptorSetSource {
  /** Its file name in DESCRIPTOR_SET_DIRECTORY. */
  name: string;
  /** The `buf build` input it is built from. */
  input: string;
  /** Only these paths of the input (`buf build --path`). */
  paths?: string[];
}

/**
 * The descriptor sets `npm run generate` builds with buf (protoc's rules, no source info) and that
 * gRPC server reflection serves as they are: the leadflow API with its imports, and the standard
 * health and reflection services, from the packages that implement them.
 */
export const DESCRIPTOR_SETS: readonly DescriptorSetSource[] = [
  { name: 'leadflow.binpb', input: 'proto' },
  { name: 'grpc-health.binpb', input: 'node_modules/grpc-health-check/proto' },
  {
    name: 'grpc-reflection.binpb',
    input: 'node_modules/@grpc/reflection/build/proto',
    paths: ['node_modules/@grpc/reflection/build/proto/grpc/reflection'],
  },
];
