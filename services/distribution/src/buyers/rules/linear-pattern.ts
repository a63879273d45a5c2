import type * as Re2js from 're2js';
import type { RE2JS } from 're2js';
import { lazyModule } from '../../lazy-module.js';

const re2js = lazyModule<typeof Re2js>('re2js');

/**
 * Regular expressions from buyer files (filter patterns, text reply locators, `matches`) run on RE2's
 * linear-time engine, never on V8's backtracking one: `^(\w+\s?)+$` costs the same per character as
 * `^\w+$`. Matching costs at most program size x input length, so both are capped: a pattern is refused
 * at `buyer apply` when it is longer or bigger than these, and input longer than MAX_PATTERN_INPUT is
 * never matched.
 */
export const MAX_PATTERN_LENGTH = 256;

/** Instructions of the compiled program: `^[A-Z]{2}$` is 6, `(.*a){20}` 102. */
export const MAX_PATTERN_PROGRAM = 100;

/** Characters a pattern is matched against: above the longest lead field (tPar, 4096). */
export const MAX_PATTERN_INPUT = 4096;

export class PatternError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatternError';
  }
}

export interface LinearPattern {
  /** Capturing groups. */
  readonly groups: number;
  /** Instructions of the compiled program: matching costs at most this many steps per character. */
  readonly program: number;
  /** Whether the pattern matches somewhere in the text; false for text over MAX_PATTERN_INPUT. */
  test(text: string): boolean;
  /** The first match's first group (the whole match without groups); undefined without a match or over MAX_PATTERN_INPUT. */
  firstMatch(text: string): string | undefined;
}

/**
 * Compiles a buyer's pattern (RE2 syntax: no backreferences or lookaround). Throws PatternError with a
 * message fit for the operator (it never repeats the pattern) when the pattern is invalid, uses what RE2
 * lacks, or is over the caps.
 */
export function compileLinearPattern(source: string, options: { ignoreCase?: boolean } = {}): LinearPattern {
  if (source.length > MAX_PATTERN_LENGTH) throw new PatternError(`is longer than ${MAX_PATTERN_LENGTH} characters`);
  let regex: RE2JS;
  try {
    const { RE2JS: Re2 } = re2js();
    regex = Re2.compile(source, options.ignoreCase ? Re2.CASE_INSENSITIVE : 0);
  } catch (error) {
    if (error instanceof re2js().RE2JSException) throw new PatternError(syntaxMessage(source));
    throw error;
  }
  if (regex.programSize() > MAX_PATTERN_PROGRAM) {
    throw new PatternError(
      `is too complex for a buyer pattern (${regex.programSize()} steps, at most ${MAX_PATTERN_PROGRAM}): simplify it`,
    );
  }
  const groups = regex.groupCount();
  return {
    groups,
    program: regex.programSize(),
    test: (text) => text.length <= MAX_PATTERN_INPUT && regex.matcher(text).find(),
    firstMatch(text) {
      if (text.length > MAX_PATTERN_INPUT) return undefined;
      const matcher = regex.matcher(text);
      if (!matcher.find()) return undefined;
      return matcher.group(groups > 0 ? 1 : 0) ?? undefined;
    },
  };
}

const compiled = new Map<string, LinearPattern>();
const MAX_CACHED = 1024;

/** compileLinearPattern, kept for the next lead or reply: the same patterns come back with every one. */
export function cachedLinearPattern(source: string, options: { ignoreCase?: boolean } = {}): LinearPattern {
  const key = `${options.ignoreCase ? 'i' : '-'}${source}`;
  let pattern = compiled.get(key);
  if (!pattern) {
    pattern = compileLinearPattern(source, options);
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(key, pattern);
  }
  return pattern;
}

function syntaxMessage(source: string): string {
  if (/\\[1-9]|\\k<|\(\?<?[=!]/.test(source)) {
    return 'uses a backreference or lookaround, which the linear-time engine (RE2 syntax) does not run';
  }
  return 'is not a valid regular expression (RE2 syntax)';
}
