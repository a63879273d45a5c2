import type { DescriptorProto, EnumDescriptorProto, FieldDescriptorProto } from '@bufbuild/protobuf/wkt';
import type { DescribedFile } from './descriptor-sets.js';

/** Raised for a symbol, file or extension the served descriptors do not have. */
export class NotDescribedError extends Error {}

/**
 * What server reflection looks up in a set of descriptor files: the file defining a fully
 * qualified name (any element, as protoc scopes them), a file by its path with every file it
 * imports, and the extensions of a message.
 */
export class ReflectionIndex {
  private readonly byName = new Map<string, DescribedFile>();
  private readonly bySymbol = new Map<string, DescribedFile>();
  /** Extended message (fully qualified) -> extension field number -> defining file. */
  private readonly extensions = new Map<string, Map<number, DescribedFile>>();
  readonly services: readonly string[];

  constructor(files: readonly DescribedFile[]) {
    const services: string[] = [];
    for (const file of files) {
      this.byName.set(file.proto.name, file);
      const scope = file.proto.package;
      for (const message of file.proto.messageType) this.indexMessage(file, scope, message);
      for (const enumType of file.proto.enumType) this.indexEnum(file, scope, enumType);
      for (const extension of file.proto.extension) this.indexExtension(file, scope, extension);
      for (const service of file.proto.service) {
        const name = qualify(scope, service.name);
        services.push(name);
        this.bySymbol.set(name, file);
        for (const method of service.method) this.bySymbol.set(qualify(name, method.name), file);
      }
    }
    this.services = services.sort();
    for (const file of files) {
      const missing = file.proto.dependency.filter((dependency) => !this.byName.has(dependency));
      if (missing.length > 0)
        throw new Error(
          `${file.proto.name} imports ${missing.join(', ')}, which the descriptor sets lack: run npm run generate`,
        );
    }
  }

  /** The file defining `symbol`, then every file it imports, directly or not. */
  fileContainingSymbol(symbol: string): DescribedFile[] {
    const file = this.bySymbol.get(symbol.replace(/^\./, ''));
    if (!file) throw new NotDescribedError(`symbol not found: ${symbol}`);
    return this.withImports(file);
  }

  fileByFilename(name: string): DescribedFile[] {
    const file = this.byName.get(name);
    if (!file) throw new NotDescribedError(`file not found: ${name}`);
    return this.withImports(file);
  }

  fileContainingExtension(extendee: string, fieldNumber: number): DescribedFile[] {
    const file = this.extensions.get(extendee.replace(/^\./, ''))?.get(fieldNumber);
    if (!file) throw new NotDescribedError(`extension ${fieldNumber} of ${extendee} not found`);
    return this.withImports(file);
  }

  extensionNumbersOf(extendee: string): number[] {
    const name = extendee.replace(/^\./, '');
    if (!this.bySymbol.has(name)) throw new NotDescribedError(`type not found: ${extendee}`);
    return [...(this.extensions.get(name)?.keys() ?? [])].sort((a, b) => a - b);
  }

  private withImports(file: DescribedFile): DescribedFile[] {
    const ordered: DescribedFile[] = [];
    const visit = (current: DescribedFile): void => {
      if (ordered.includes(current)) return;
      ordered.push(current);
      for (const dependency of current.proto.dependency) visit(this.byName.get(dependency)!);
    };
    visit(file);
    return ordered;
  }

  private indexMessage(file: DescribedFile, scope: string, message: DescriptorProto): void {
    const name = qualify(scope, message.name);
    this.bySymbol.set(name, file);
    for (const field of message.field) this.bySymbol.set(qualify(name, field.name), file);
    for (const oneof of message.oneofDecl) this.bySymbol.set(qualify(name, oneof.name), file);
    for (const nested of message.nestedType) this.indexMessage(file, name, nested);
    for (const enumType of message.enumType) this.indexEnum(file, name, enumType);
    for (const extension of message.extension) this.indexExtension(file, name, extension);
  }

  /** Enum values are scoped beside their enum, not inside it. */
  private indexEnum(file: DescribedFile, scope: string, enumType: EnumDescriptorProto): void {
    this.bySymbol.set(qualify(scope, enumType.name), file);
    for (const value of enumType.value) this.bySymbol.set(qualify(scope, value.name), file);
  }

  private indexExtension(file: DescribedFile, scope: string, extension: FieldDescriptorProto): void {
    this.bySymbol.set(qualify(scope, extension.name), file);
    const extendee = extension.extendee.replace(/^\./, '');
    const numbers = this.extensions.get(extendee) ?? new Map<number, DescribedFile>();
    numbers.set(extension.number, file);
    this.extensions.set(extendee, numbers);
  }
}

function qualify(scope: string, name: string): string {
  return scope ? `${scope}.${name}` : name;
}
