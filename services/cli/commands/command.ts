import type { CommandArgs, OptionSpecs } from '../args.js';
import type { ServiceCalls } from '../service-calls.js';

/** A command's answer in both forms; `--json` picks which one is printed. */
export interface CommandOutput {
  /** One JSON document for scripts. */
  json: unknown;
  /** What a person reads, ending with a newline. */
  text: string;
}

/**
 * One `leadflow GROUP NAME ...` command. `parse` checks the command line
 * before anything connects, so usage errors never depend on the service.
 */
export interface Command<Input> {
  group: string;
  name: string;
  /** What follows the command's words, e.g. "--name NAME [--rate-limit N]". */
  synopsis: string;
  /** One line for the list of commands. */
  summary: string;
  /** Explanations of the arguments, one per line, for the command's --help. */
  details: string[];
  options: OptionSpecs;
  /** Names of the positional arguments, all required. */
  positionals: string[];
  parse(args: CommandArgs): Input;
  run(calls: ServiceCalls, input: Input): Promise<CommandOutput>;
}
