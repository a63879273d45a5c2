// `grpcurl` for the docs' tests, which cannot install it: the subset of its command line the docs use
// (-plaintext, -H, -d; list, describe, a call), with grpcurl's meaning, done with nothing but what the
// server's reflection answers. Anything else it refuses, so that a documented line it accepts is one
// grpcurl runs. Each run appends {args, stdout, stderr, code} as a JSON line to $GRPCURL_STAND_IN_LOG.
import { appendFileSync } from 'node:fs';
import {
  create,
  createFileRegistry,
  type DescMethod,
  type FileRegistry,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
} from '@bufbuild/protobuf';
import { type FileDescriptorProto, FileDescriptorProtoSchema, FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { Client, credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { reflect, reflectionClient } from '../../support/grpc-clients.js';

const CALL_TIMEOUT_MS = 20_000;

class UsageError extends Error {}

interface Command {
  headers: [string, string][];
  data: string | undefined;
  address: string;
  verb: string[];
}

/** grpcurl's flags come before the address (Go's flag package stops at the first argument that is not one). */
function parseCommand(args: string[]): Command {
  let plaintext = false;
  const headers: [string, string][] = [];
  let data: string | undefined;
  let index = 0;
  for (; index < args.length && args[index]!.startsWith('-'); index += 1) {
    const flag = args[index]!.replace(/^--?/, '-');
    if (flag === '-plaintext') plaintext = true;
    else if (flag === '-H' || flag === '-d') {
      const value = args[++index];
      if (value === undefined) throw new UsageError(`flag needs an argument: ${flag}`);
      if (flag === '-d') data = value;
      else {
        const colon = value.indexOf(':');
        if (colon < 1) throw new UsageError(`-H must be "name: value": ${value}`);
        headers.push([value.slice(0, colon).trim().toLowerCase(), value.slice(colon + 1).trim()]);
      }
    } else throw new UsageError(`flag not supported by this stand-in: ${args[index]}`);
  }
  // Without -plaintext grpcurl speaks TLS, which a plaintext loopback server does not answer.
  if (!plaintext) throw new UsageError('the service on loopback is plaintext: -plaintext is required');
  const [address, ...verb] = args.slice(index);
  if (!address || verb.length === 0) throw new UsageError('expected ADDRESS then list, describe or a method');
  return { headers, data, address, verb };
}

/** The server's descriptors, fetched file by file (each with what it imports) as grpcurl fetches them. */
class ReflectedDescriptors {
  private readonly reflection: ReturnType<typeof reflectionClient>;
  private readonly files = new Map<string, FileDescriptorProto>();

  constructor(address: string) {
    this.reflection = reflectionClient(address);
  }

  async services(): Promise<string[]> {
    const answer = await this.ask({ list_services: '' });
    return (answer.list_services_response.service as { name: string }[]).map((service) => service.name);
  }

  /** A registry holding the file that declares `symbol` and every file it imports. */
  async registryFor(symbol: string): Promise<FileRegistry> {
    await this.add(await this.ask({ file_containing_symbol: symbol }));
    return createFileRegistry(create(FileDescriptorSetSchema, { file: this.importsFirst() }));
  }

  close(): void {
    this.reflection.close();
  }

  /** The files, each after those it imports, as a registry reads them. */
  private importsFirst(): FileDescriptorProto[] {
    const ordered: FileDescriptorProto[] = [];
    const visit = (file: FileDescriptorProto) => {
      if (ordered.includes(file)) return;
      for (const dependency of file.dependency) visit(this.files.get(dependency)!);
      ordered.push(file);
    };
    for (const file of this.files.values()) visit(file);
    return ordered;
  }

  // biome-ignore lint/suspicious/noExplicitAny: reflection answers are read field by field
  private async ask(request: Record<string, string>): Promise<any> {
    const answer = await reflect(this.reflection, request);
    if (answer.message_response === 'error_response')
      throw new Error(`Failed to resolve symbol: ${answer.error_response.error_message}`);
    return answer;
  }

  // biome-ignore lint/suspicious/noExplicitAny: a FileDescriptorResponse
  private async add(answer: any): Promise<void> {
    const decoded = (answer.file_descriptor_response.file_descriptor_proto as Buffer[]).map((bytes) =>
      fromBinary(FileDescriptorProtoSchema, bytes),
    );
    for (const file of decoded) this.files.set(file.name, file);
    for (const file of decoded)
      for (const dependency of file.dependency)
        if (!this.files.has(dependency)) await this.add(await this.ask({ file_by_filename: dependency }));
  }
}

/** `package.Service/Method` or `package.Service.Method`, as grpcurl takes a method. */
function splitMethod(symbol: string): [string, string] {
  const slash = symbol.lastIndexOf('/');
  const at = slash >= 0 ? slash : symbol.lastIndexOf('.');
  return [symbol.slice(0, at), symbol.slice(at + 1)];
}

async function describeService(descriptors: ReflectedDescriptors, symbol: string): Promise<string> {
  const service = (await descriptors.registryFor(symbol)).getService(symbol);
  if (!service) throw new UsageError(`only services can be described by this stand-in: ${symbol}`);
  const methods = service.methods.map(
    (method) => `  rpc ${method.name} ( .${method.input.typeName} ) returns ( .${method.output.typeName} );`,
  );
  return [`${service.typeName} is a service:`, `service ${service.name} {`, ...methods, '}'].join('\n');
}

function unaryCall(address: string, method: DescMethod, request: Uint8Array, metadata: Metadata): Promise<Buffer> {
  const client = new Client(address, credentials.createInsecure());
  return new Promise<Buffer>((resolve, reject) =>
    client.makeUnaryRequest(
      `/${method.parent.typeName}/${method.name}`,
      (bytes: Uint8Array) => Buffer.from(bytes),
      (bytes: Buffer) => bytes,
      request,
      metadata,
      { deadline: Date.now() + CALL_TIMEOUT_MS },
      (error: ServiceError | null, response?: Buffer) => (error ? reject(error) : resolve(response!)),
    ),
  ).finally(() => client.close());
}

async function invoke(descriptors: ReflectedDescriptors, command: Command, symbol: string): Promise<string> {
  const [serviceName, methodName] = splitMethod(symbol);
  const registry = await descriptors.registryFor(serviceName);
  const method = registry.getService(serviceName)?.methods.find((candidate) => candidate.name === methodName);
  if (!method) throw new Error(`service "${serviceName}" does not include a method named "${methodName}"`);
  if (method.methodKind !== 'unary') throw new UsageError('only unary methods are supported by this stand-in');
  // grpcurl reads the request as protojson: proto or JSON field names, an unknown field is an error.
  const request = fromJson(method.input, JSON.parse(command.data ?? '{}'), { registry });
  const metadata = new Metadata();
  for (const [name, value] of command.headers) metadata.add(name, value);
  const answer = await unaryCall(command.address, method, toBinary(method.input, request), metadata);
  return JSON.stringify(toJson(method.output, fromBinary(method.output, answer), { registry }), null, 2);
}

async function run(command: Command): Promise<string> {
  const descriptors = new ReflectedDescriptors(command.address);
  try {
    const [verb, symbol] = command.verb;
    if (verb === 'list' && symbol === undefined) return (await descriptors.services()).sort().join('\n');
    if (verb === 'list') {
      const service = (await descriptors.registryFor(symbol!)).getService(symbol!);
      if (!service) throw new Error(`Symbol "${symbol}" is not a service`);
      return service.methods.map((method) => `${service.typeName}.${method.name}`).join('\n');
    }
    if (verb === 'describe' && symbol !== undefined) return await describeService(descriptors, symbol);
    if (command.verb.length === 1) return await invoke(descriptors, command, verb!);
    throw new UsageError(`unexpected arguments: ${command.verb.join(' ')}`);
  } finally {
    descriptors.close();
  }
}

/** grpcurl's exit codes: 2 for a usage error, 64 + the status code for a failed call, 1 otherwise. */
function exitCode(error: unknown): number {
  if (error instanceof UsageError) return 2;
  const code = (error as Partial<ServiceError>).code;
  return typeof code === 'number' ? 64 + code : 1;
}

function record(args: string[], stdout: string, stderr: string, code: number): void {
  const log = process.env.GRPCURL_STAND_IN_LOG;
  if (log) appendFileSync(log, `${JSON.stringify({ args, stdout, stderr, code })}\n`);
}

const args = process.argv.slice(2);
try {
  const stdout = `${await run(parseCommand(args))}\n`;
  process.stdout.write(stdout);
  record(args, stdout, '', 0);
} catch (error) {
  const stderr = `ERROR: ${(error as Error).message}\n`;
  process.stderr.write(stderr);
  record(args, '', stderr, exitCode(error));
  process.exitCode = exitCode(error);
}
