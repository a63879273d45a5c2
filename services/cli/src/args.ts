import { type ParseArgsConfig, parseArgs } from 'node:util';
import { parseAmountCents } from '@leadflow/core/amounts';
import { UsageError } from './errors.js';

export type OptionSpecs = NonNullable<ParseArgsConfig['options']>;

// Every integer the CLI sends travels in an int32 field: larger values would wrap.
const INT32_MAX = 2_147_483_647;

/** A negative number, which parseArgs takes for an option ("-5"): ambiguous after a string option, else unknown. */
const NEGATIVE_NUMBER = /^-\d+(?:\.\d*)?$/;
/**
 * Marks a negative number while parseArgs reads the line (no option starts with it), so that it is read as
 * a value and the option's or positional's own check says what is wrong with it.
 */
const VALUE_MARK = '\u0000';

const marked = (arg: string) => (NEGATIVE_NUMBER.test(arg) ? VALUE_MARK + arg : arg);
const unmarked = <T>(value: T) =>
  typeof value === 'string' && value.startsWith(VALUE_MARK) ? value.slice(VALUE_MARK.length) : value;

/** One command's arguments after its words, checked against its options. */
export class CommandArgs {
  private constructor(
    private readonly values: Record<string, string | boolean | undefined>,
    readonly positionals: string[],
  ) {}

  static parse(args: string[], options: OptionSpecs): CommandArgs {
    try {
      const parsed = parseArgs({ args: args.map(marked), options, allowPositionals: true, strict: true });
      const values = Object.fromEntries(Object.entries(parsed.values).map(([name, value]) => [name, unmarked(value)]));
      return new CommandArgs(values as Record<string, string | boolean | undefined>, parsed.positionals.map(unmarked));
    } catch (error) {
      if (!String((error as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS_')) throw error;
      // Some of parseArgs' messages go on to suggest fixes over more lines; the first says what is wrong.
      throw new UsageError((error as Error).message.split('\n')[0]);
    }
  }

  flag(name: string): boolean {
    return this.values[name] === true;
  }

  string(name: string): string | undefined {
    const value = this.values[name];
    return typeof value === 'string' ? value : undefined;
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
    return value;
  }

  /** A whole number from `min` to `max`, or undefined when the option is absent. */
  wholeNumber(name: string, min: number, max = INT32_MAX): number | undefined {
    const raw = this.string(name);
    return raw === undefined ? undefined : parseWholeNumber(`--${name}`, raw, min, max);
  }

  /** Dollars above zero with at most two decimals as integer cents, or undefined when the option is absent. */
  cents(name: string): number | undefined {
    const raw = this.string(name);
    return raw === undefined ? undefined : parseCents(`--${name}`, raw);
  }

  requiredCents(name: string): number {
    return parseCents(`--${name}`, this.requiredString(name));
  }

  /** A comma-separated list, upper-cased, empty entries dropped. */
  codeList(name: string): string[] {
    const raw = this.string(name) ?? '';
    return raw
      .split(',')
      .map((entry) => entry.trim().toUpperCase())
      .filter((entry) => entry !== '');
  }
}

/**
 * `what` names the value in the message: an option ("--rate-limit") or a positional ("N"); `max` is the
 * service's own limit where it has one (the message then gives the range the service would accept).
 */
export function parseWholeNumber(what: string, raw: string, min: number, max = INT32_MAX): number {
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) {
    throw new UsageError(`${what} must be a whole number from ${min} to ${max}`);
  }
  return value;
}

/** Every amount the CLI takes is a price or a credit: dollars above zero. */
export function parseCents(what: string, raw: string): number {
  const negative = raw.startsWith('-');
  const cents = parseAmountCents(negative ? raw.slice(1) : raw);
  if (cents === undefined) throw new UsageError(`${what} must be an amount in dollars such as 12 or 12.50`);
  if (negative || cents === 0) throw new UsageError(`${what} must be above 0`);
  if (!Number.isSafeInteger(cents)) throw new UsageError(`${what} is too large`);
  return cents;
}
