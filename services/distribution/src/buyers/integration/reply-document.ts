import type { ResponseFormat } from '../definition/buyer-definition.js';
import { cachedLinearPattern, type LinearPattern, PatternError } from '../rules/linear-pattern.js';
import { cachedJsonPath, selectJsonPath } from './json-path.js';
import { parseXml, ReplyTooComplexError } from './xml-document.js';
import { parseXPath } from './xml-path.js';

export { ReplyTooComplexError } from './xml-document.js';

/**
 * Text replies longer than this are not matched: a text locator costs its program size per character, and
 * a buyer that answers in plain text answers in a line or two.
 */
export const MAX_TEXT_REPLY = 2048;

/** A parsed reply that answers locator paths. */
export interface ReplyDocument {
  /**
   * The trimmed text at the path; undefined when the path finds nothing, or only an empty string, a
   * null or an object. Throws InvalidLocatorError when the path itself is malformed.
   */
  locate(path: string): string | undefined;
}

export class InvalidLocatorError extends Error {
  constructor(path: string) {
    super(`invalid locator: ${path}`);
    this.name = 'InvalidLocatorError';
  }
}

/**
 * The reply read in the buyer's format; undefined when it is not valid JSON or XML. Throws
 * ReplyTooComplexError for a reply over the caps, before any path is evaluated.
 */
export function readReplyDocument(format: ResponseFormat, body: string): ReplyDocument | undefined {
  switch (format) {
    case 'json':
      return jsonDocument(body);
    case 'xml':
      return xmlDocument(body);
    case 'text':
      return textDocument(body);
  }
}

/** JSON nested deeper than this is refused before it is parsed: V8 takes tens of milliseconds on 30,000 levels. */
export const MAX_JSON_DEPTH = 32;

function checkJsonDepth(body: string): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < body.length; index++) {
    const code = body.charCodeAt(index);
    if (inString) {
      if (code === 92 /* \ */) index++;
      else if (code === 34 /* " */) inString = false;
    } else if (code === 34) {
      inString = true;
    } else if (code === 91 /* [ */ || code === 123 /* { */) {
      if (++depth > MAX_JSON_DEPTH) throw new ReplyTooComplexError(`nested more than ${MAX_JSON_DEPTH} levels`);
    } else if (code === 93 /* ] */ || code === 125 /* } */) {
      depth--;
    }
  }
}

function jsonDocument(body: string): ReplyDocument | undefined {
  checkJsonDepth(body);
  let root: unknown;
  try {
    root = JSON.parse(body);
  } catch {
    return undefined;
  }
  return {
    locate(path) {
      const segments = cachedJsonPath(path);
      if (!segments) throw new InvalidLocatorError(path);
      return nonEmpty(jsonText(selectJsonPath(root, segments)));
    },
  };
}

/** Scalars as text; an array of scalars (a list of error messages) joined with "; ". */
function jsonText(value: unknown): string | undefined {
  if (isScalar(value)) return String(value);
  if (Array.isArray(value) && value.length > 0 && value.every(isScalar)) return value.map(String).join('; ');
  return undefined;
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function xmlDocument(body: string): ReplyDocument | undefined {
  const document = parseXml(body);
  if (!document) return undefined;
  return {
    locate(path) {
      const expression = parseXPath(path);
      if (!expression) throw new InvalidLocatorError(path);
      try {
        return nonEmpty(document.select(expression));
      } catch (error) {
        if (error instanceof ReplyTooComplexError) throw error;
        throw new InvalidLocatorError(path);
      }
    },
  };
}

/** Text replies: the path is a regular expression; its first group, or the whole match without one. */
function textDocument(body: string): ReplyDocument {
  // Trimmed so that "$" anchors at the end of the answer despite a trailing newline.
  const text = body.trim();
  if (text.length > MAX_TEXT_REPLY) throw new ReplyTooComplexError(`a text reply over ${MAX_TEXT_REPLY} characters`);
  return {
    locate: (path) => nonEmpty(compile(path).firstMatch(text)),
  };
}

function compile(pattern: string): LinearPattern {
  try {
    return cachedLinearPattern(pattern);
  } catch (error) {
    if (error instanceof PatternError) throw new InvalidLocatorError(pattern);
    throw error;
  }
}

function nonEmpty(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed === '' ? undefined : trimmed;
}
