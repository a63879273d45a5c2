import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type Document, type ErrorCode, LineCounter, parseDocument, type YAMLError } from 'yaml';
import type { InputStream } from './commands/command.js';
import { locatePath, type Position } from './document-locations.js';
import { documentRefused } from './document-mistakes.js';
import { CliFailure, type FailedCommand } from './errors.js';
import { jsonSyntaxError } from './json-syntax.js';
import { decodeUtf8 } from './utf8-text.js';

/** The file name that means standard input. */
const STDIN = '-';

/** A YAML or JSON document the operator wrote: its value, and where its parts are in the source. */
export interface SourceDocument {
  /** The file as the operator named it; "<stdin>" for `-`. */
  name: string;
  value: unknown;
  /** The value as JSON, the form the service takes it in (numbers JSON cannot carry written as null). */
  json: string;
  /** Where the part a path such as "buyers[2].caps.leadsPerDay" names is in the source, when it can be told. */
  locate(path: string): Position | undefined;
}

type Format = 'json' | 'yaml' | 'either';

interface YamlSource {
  doc: Document;
  lineCounter: LineCounter;
}

function formatOf(file: string): Format {
  switch (path.extname(file).toLowerCase()) {
    case '.json':
      return 'json';
    case '.yaml':
    case '.yml':
      return 'yaml';
    default:
      return 'either';
  }
}

function describeReadError(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EISDIR':
      return 'it is a directory';
    case 'EACCES':
      return 'permission denied';
    default:
      return error.message;
  }
}

/** The bytes of FILE, or of standard input for `-`. */
async function readBytes(file: string, stdin: InputStream): Promise<Buffer> {
  if (file === STDIN) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return Buffer.concat(chunks);
  }
  try {
    return await readFile(file);
  } catch (error) {
    throw new CliFailure(`cannot read ${file}: ${describeReadError(error as NodeJS.ErrnoException)}`);
  }
}

/** The text of FILE, or of standard input for `-`. */
export async function readText(file: string, stdin: InputStream): Promise<string> {
  return (await readBytes(file, stdin)).toString('utf8');
}

function positionAt(text: string, offset: number): Position {
  const lines = text.slice(0, offset).split('\n');
  return { line: lines.length, column: lines[lines.length - 1].length + 1 };
}

/** The document's text without a byte order mark; refused, at its first byte that is not UTF-8, when it is not UTF-8. */
function documentText(name: string, bytes: Buffer): string {
  const decoded = decodeUtf8(bytes);
  if ('text' in decoded) return decoded.text.replace(/^\uFEFF/, '');
  const before = decoded.textBefore.replace(/^\uFEFF/, '');
  throw documentRefused(
    name,
    `not valid UTF-8 at byte offset ${decoded.invalidByte}: save the file as UTF-8`,
    positionAt(before, before.length),
  );
}

/** The first syntax error, at its line and column, in words that quote nothing of the file. */
function notJson(name: string, text: string): FailedCommand {
  const error = jsonSyntaxError(text);
  return error
    ? documentRefused(name, `not valid JSON: ${error.message}`, positionAt(text, error.offset))
    : documentRefused(name, 'not valid JSON');
}

/** Errors whose library message can quote the file (a token, an escape, a tag), in words of our own. */
const QUOTING_YAML_ERRORS: Partial<Record<ErrorCode, string>> = {
  UNEXPECTED_TOKEN: 'unexpected text',
  BAD_DQ_ESCAPE: 'a double-quoted string holds an invalid escape sequence',
  TAG_RESOLVE_FAILED: 'a tag that cannot be resolved',
};

function yamlMessage(error: YAMLError): string {
  if (error.code === 'MULTIPLE_DOCS') return 'the file holds more than one document';
  return QUOTING_YAML_ERRORS[error.code] ?? error.message;
}

/** Why the aliases of a document that parsed cannot be expanded; the library's message can name an anchor. */
function aliasProblem(error: Error): string {
  return /excessive alias count/i.test(error.message)
    ? 'its aliases expand to too many nodes (a document built to exhaust memory)'
    : 'an alias names no anchor set before it';
}

function yamlValue(name: string, { doc, lineCounter }: YamlSource): unknown {
  const [error] = doc.errors;
  if (error) {
    const message = yamlMessage(error);
    const where = error.pos[0] >= 0 ? lineCounter.linePos(error.pos[0]) : undefined;
    throw documentRefused(name, `not valid YAML: ${message}`, where && { line: where.line, column: where.col });
  }
  try {
    return doc.toJS();
  } catch (error) {
    throw documentRefused(name, `cannot be read: ${aliasProblem(error as Error)}`);
  }
}

/**
 * JSON.parse keeps the last of a key written twice in an object, so that the first silently means
 * nothing; YAML refuses it, and a JSON document is refused the same way. The YAML parse of the same text
 * finds it: JSON is YAML.
 */
function checkUniqueKeys(name: string, { doc, lineCounter }: YamlSource): void {
  const repeated = doc.errors.find((error) => error.code === 'DUPLICATE_KEY');
  if (!repeated) return;
  const { line, col } = lineCounter.linePos(repeated.pos[0]);
  throw documentRefused(name, 'not valid JSON: keys must be unique in an object', { line, column: col });
}

/** The document's value; JSON is read as JSON (YAML would take some mistakes JSON does not), else YAML. */
function parseValue(name: string, text: string, format: Format, source: YamlSource): unknown {
  if (format === 'yaml') return yamlValue(name, source);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (format === 'json') throw notJson(name, text);
    return yamlValue(name, source);
  }
  checkUniqueKeys(name, source);
  return value;
}

/** JSON.stringify fails only on a value that holds itself: a YAML alias inside the node it names (`a: &a [*a]`). */
function jsonOf(name: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    throw documentRefused(name, 'cannot be read: an alias is inside the node it names');
  }
}

/**
 * Reads FILE, or standard input for `-`, as JSON (`.json`), YAML (`.yaml`, `.yml`), or else JSON when it
 * parses as JSON and YAML otherwise; UTF-8 only. A syntax error refuses the document as a mistake at its
 * line and column (a FailedCommand). Paths are located through the YAML parse of the text either way:
 * JSON is YAML.
 */
export async function readSourceDocument(file: string, stdin: InputStream): Promise<SourceDocument> {
  const name = file === STDIN ? '<stdin>' : file;
  const text = documentText(name, await readBytes(file, stdin));
  const lineCounter = new LineCounter();
  const source = { doc: parseDocument(text, { lineCounter, prettyErrors: false }), lineCounter };
  const value = parseValue(name, text, file === STDIN ? 'either' : formatOf(file), source);
  if (value === null || value === undefined) throw documentRefused(name, 'the document is empty');
  return {
    name,
    value,
    json: jsonOf(name, value),
    locate: (documentPath) =>
      source.doc.errors.length === 0 ? locatePath(source.doc, lineCounter, documentPath) : undefined,
  };
}
