import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromBinary } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { type FileDescriptorProto, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';

export interface DescriptorSetSource {
  /** Where the set is committed, from the repository root. */
  file: string;
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
  { file: 'proto/generated/leadflow.binpb', input: 'proto' },
  { file: 'proto/generated/grpc-health.binpb', input: 'node_modules/grpc-health-check/proto' },
  {
    file: 'proto/generated/grpc-reflection.binpb',
    input: 'node_modules/@grpc/reflection/build/proto',
    paths: ['node_modules/@grpc/reflection/build/proto/grpc/reflection'],
  },
];

/** One file of a descriptor set: its bytes exactly as built, and their decoding. */
export interface DescribedFile {
  bytes: Uint8Array;
  proto: FileDescriptorProto;
}

/** The repository root, from the sources or from dist/ (tsc does not copy the descriptor sets). */
function repositoryRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, '../../../..'), path.join(here, '../../../../..')];
  const found = candidates.find((candidate) => existsSync(path.join(candidate, DESCRIPTOR_SETS[0]!.file)));
  if (!found)
    throw new Error(`${DESCRIPTOR_SETS[0]!.file} not found under ${candidates.join(' or ')}: run npm run generate`);
  return found;
}

/**
 * The files of a serialized FileDescriptorSet (field 1, repeated), each as the bytes it was
 * written with, so that what is served is what buf built, not a re-encoding of it.
 */
function splitDescriptorSet(set: Uint8Array): DescribedFile[] {
  const reader = new BinaryReader(set);
  const files: DescribedFile[] = [];
  while (reader.pos < reader.len) {
    const [fieldNo, wireType] = reader.tag();
    if (fieldNo !== 1 || wireType !== WireType.LengthDelimited) {
      reader.skip(wireType);
      continue;
    }
    const bytes = reader.bytes();
    files.push({ bytes, proto: fromBinary(FileDescriptorProtoSchema, bytes) });
  }
  return files;
}

/** Every file of the committed descriptor sets, each once (a file two sets import is the same file). */
export function loadDescribedFiles(): DescribedFile[] {
  const root = repositoryRoot();
  const byName = new Map<string, DescribedFile>();
  for (const { file } of DESCRIPTOR_SETS) {
    for (const described of splitDescriptorSet(readFileSync(path.join(root, file)))) {
      const seen = byName.get(described.proto.name);
      if (seen && Buffer.compare(seen.bytes, described.bytes) !== 0) {
        throw new Error(`${described.proto.name} differs between descriptor sets: run npm run generate`);
      }
      byName.set(described.proto.name, described);
    }
  }
  return [...byName.values()];
}
