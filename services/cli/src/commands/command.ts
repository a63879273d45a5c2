import type { CommandArgs, OptionSpecs } from '../args.js';
import type { ServiceCalls } from '../service-calls.js';

/** Standard input as a command may read it (`-f -`): the process's, or a test's text. */
export type InputStream = AsyncIterable<string | Uint8Array>;

/** A command's answer in both forms; `--json` picks which one is printed. */
export interface CommandOutput {
  /** One JSON document for scripts. */
  json: unknown;
  /** What a person reads, ending with a newline. */
  text: string;
  /**
   * The service answered, and the answer is a failure the text explains (mistakes in a
   * document): the text goes to stderr and the exit code is 1; the JSON still goes to stdout.
   */
  failed?: boolean;
}

/**
 * One `leadflow GROUP NAME ...` command. `parse` checks the command line, and
 * reads any file it names, before anything connects, so usage errors and
 * unreadable files never depend on the service.
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
  parse(args: CommandArgs, stdin: InputStream): Input | Promise<Input>;
  run(calls: ServiceCalls, input: Input): Promise<CommandOutput>;
}
