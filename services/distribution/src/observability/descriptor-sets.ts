import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fromBinary } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { type FileDescriptorProto, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { DESCRIPTOR_SETS } from '@leadflow/proto/descriptor-set-sources';

/** One file of a descriptor set: its bytes exactly as built, and their decoding. */
export interface DescribedFile {
  bytes: Uint8Array;
  proto: FileDescriptorProto;
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

/** A committed descriptor set's bytes, from @leadflow/proto's files. */
function readDescriptorSet(name: string): Buffer {
  const file = createRequire(import.meta.url).resolve(`@leadflow/proto/descriptor-sets/${name}`);
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(`${file} cannot be read (${(error as Error).message}): run npm run generate`);
  }
}

/** Every file of the committed descriptor sets, each once (a file two sets import is the same file). */
export function loadDescribedFiles(): DescribedFile[] {
  const byName = new Map<string, DescribedFile>();
  for (const { name } of DESCRIPTOR_SETS) {
    for (const described of splitDescriptorSet(readDescriptorSet(name))) {
      const seen = byName.get(described.proto.name);
      if (seen && Buffer.compare(seen.bytes, described.bytes) !== 0) {
        throw new Error(`${described.proto.name} differs between descriptor sets: run npm run generate`);
      }
      byName.set(described.proto.name, described);
    }
  }
  return [...byName.values()];
}
