import {
  create,
  createFileRegistry,
  type DescMessage,
  type FileRegistry,
  fromBinary,
  type Message,
  toBinary,
} from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { type Server, type ServerDuplexStream, type ServiceDefinition, status } from '@grpc/grpc-js';
import { type DescribedFile, loadDescribedFiles } from './descriptor-sets.js';
import { NotDescribedError, ReflectionIndex } from './reflection-index.js';

/** The two published versions of the reflection protocol: same messages, other package. */
const REFLECTION_PACKAGES = ['grpc.reflection.v1', 'grpc.reflection.v1alpha'];
const MESSAGES = [
  'ServerReflectionRequest',
  'ServerReflectionResponse',
  'FileDescriptorResponse',
  'ListServiceResponse',
  'ExtensionNumberResponse',
  'ErrorResponse',
] as const;
type Messages = Record<(typeof MESSAGES)[number], DescMessage>;

/** ServerReflectionRequest as protobuf-es decodes it (its oneof `message_request`). */
interface ReflectionRequest extends Message {
  host: string;
  messageRequest:
    | { case: 'fileByFilename' | 'fileContainingSymbol' | 'allExtensionNumbersOfType' | 'listServices'; value: string }
    | { case: 'fileContainingExtension'; value: { containingType: string; extensionNumber: number } }
    | { case: undefined; value?: undefined };
}

type ReflectionAnswer = { case: string; value: Message };

/**
 * gRPC server reflection (v1 and v1alpha) serving the descriptor sets buf built from proto/ and
 * from the health and reflection protocols, byte for byte: real file paths, field names as
 * written with their json_name, map entries and imports as protoc makes them, so that grpcurl,
 * grpcui and protoc-based descriptor pools accept them.
 */
export function addReflection(server: Server): void {
  const files = loadDescribedFiles();
  const index = new ReflectionIndex(files);
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: files.map((file) => file.proto) }));
  for (const pkg of REFLECTION_PACKAGES) {
    const messages = reflectionMessages(registry, pkg);
    server.addService(reflectionService(pkg, messages), {
      ServerReflectionInfo: (call: ServerDuplexStream<ReflectionRequest, Message>) => {
        call.on('data', (request: ReflectionRequest) => {
          const answer = reflectionAnswer(index, messages, request);
          call.write(
            create(messages.ServerReflectionResponse, {
              validHost: request.host,
              originalRequest: request,
              messageResponse: answer,
            }),
          );
        });
        call.on('end', () => call.end());
      },
    });
  }
}

function reflectionAnswer(index: ReflectionIndex, messages: Messages, request: ReflectionRequest): ReflectionAnswer {
  const files = (described: DescribedFile[]): ReflectionAnswer => ({
    case: 'fileDescriptorResponse',
    value: create(messages.FileDescriptorResponse, { fileDescriptorProto: described.map((file) => file.bytes) }),
  });
  const { messageRequest } = request;
  try {
    switch (messageRequest.case) {
      case 'listServices':
        return {
          case: 'listServicesResponse',
          value: create(messages.ListServiceResponse, { service: index.services.map((name) => ({ name })) }),
        };
      case 'fileByFilename':
        return files(index.fileByFilename(messageRequest.value));
      case 'fileContainingSymbol':
        return files(index.fileContainingSymbol(messageRequest.value));
      case 'fileContainingExtension':
        return files(
          index.fileContainingExtension(messageRequest.value.containingType, messageRequest.value.extensionNumber),
        );
      case 'allExtensionNumbersOfType':
        return {
          case: 'allExtensionNumbersResponse',
          value: create(messages.ExtensionNumberResponse, {
            baseTypeName: messageRequest.value,
            extensionNumber: index.extensionNumbersOf(messageRequest.value),
          }),
        };
      default:
        return errorAnswer(messages, status.INVALID_ARGUMENT, 'the request names no reflection question');
    }
  } catch (error) {
    if (error instanceof NotDescribedError) return errorAnswer(messages, status.NOT_FOUND, error.message);
    throw error;
  }
}

function errorAnswer(messages: Messages, code: status, text: string): ReflectionAnswer {
  return { case: 'errorResponse', value: create(messages.ErrorResponse, { errorCode: code, errorMessage: text }) };
}

/** The protocol's messages in one of its packages, looked up once: a set without them fails the start. */
function reflectionMessages(registry: FileRegistry, pkg: string): Messages {
  const entries = MESSAGES.map((name) => {
    const found = registry.getMessage(`${pkg}.${name}`);
    if (!found) throw new Error(`${pkg}.${name} is missing from the descriptor sets: run npm run generate`);
    return [name, found] as const;
  });
  return Object.fromEntries(entries) as Messages;
}

/** A grpc-js definition of ServerReflection, its messages encoded from the served descriptors. */
function reflectionService(pkg: string, messages: Messages): ServiceDefinition {
  const { ServerReflectionRequest: request, ServerReflectionResponse: response } = messages;
  return {
    ServerReflectionInfo: {
      path: `/${pkg}.ServerReflection/ServerReflectionInfo`,
      requestStream: true,
      responseStream: true,
      requestSerialize: (value: Message) => Buffer.from(toBinary(request, value)),
      requestDeserialize: (bytes: Buffer) => fromBinary(request, bytes),
      responseSerialize: (value: Message) => Buffer.from(toBinary(response, value)),
      responseDeserialize: (bytes: Buffer) => fromBinary(response, bytes),
    },
  };
}
