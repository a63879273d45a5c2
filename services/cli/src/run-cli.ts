import { CommandArgs, type OptionSpecs } from './args.js';
import { buyerCommands } from './commands/buyer.js';
import type { Command, CommandOutput, InputStream } from './commands/command.js';
import { leadCommands } from './commands/lead.js';
import { type LocalCommand, piiCommands } from './commands/pii.js';
import { publisherCommands } from './commands/publisher.js';
import { publisherPostbackCommands } from './commands/publisher-postbacks.js';
import { reportCommands } from './commands/report.js';
import { returnsCommands } from './commands/returns.js';
import { secretsCommands } from './commands/secrets.js';
import { resolveConnection } from './connection.js';
import { CliFailure, FailedCommand, UsageError } from './errors.js';
import { jsonOutput } from './json-output.js';
import { ServiceCalls } from './service-calls.js';
import { commandUsage, groupUsage, programUsage } from './usage.js';

/** Where the CLI reads and writes: the process's streams, or a test's buffers. */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  stdin: InputStream;
  env: Record<string, string | undefined>;
}

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

type AnyCommand = Command<unknown> | LocalCommand<unknown>;

/** Every command of the CLI. */
export const COMMANDS: AnyCommand[] = [
  ...publisherCommands,
  ...publisherPostbackCommands,
  ...buyerCommands,
  ...leadCommands,
  ...returnsCommands,
  ...piiCommands,
  ...reportCommands,
  ...secretsCommands,
];

const COMMON_OPTIONS: OptionSpecs = {
  json: { type: 'boolean' },
  address: { type: 'string' },
  'tls-ca': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const isHelp = (word: string) => word === '--help' || word === '-h';

/** A bad command line: the mistake on one line, then where its usage is; the whole usage only for a bare `leadflow`. */
function usageError(io: CliIo, message: string, helpCommand: string): number {
  io.stderr.write(`leadflow: ${message}\nRun '${helpCommand} --help' for usage.\n`);
  return EXIT_USAGE;
}

const commandWords = (command: AnyCommand) => ['leadflow', command.group, command.name].filter(Boolean).join(' ');

function checkPositionals(command: AnyCommand, positionals: string[]): void {
  const missing = command.positionals.slice(positionals.length);
  if (missing.length > 0) throw new UsageError(`missing ${missing.join(' ')}`);
  const extra = positionals.slice(command.positionals.length);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
}

/** A command's answer: its JSON on stdout with --json, else its text on stdout, or on stderr when it failed. */
function printOutput(io: CliIo, output: CommandOutput, json: boolean): number {
  if (json) io.stdout.write(jsonOutput(output.json));
  else (output.failed ? io.stderr : io.stdout).write(output.text);
  return output.failed ? EXIT_FAILED : EXIT_OK;
}

async function runCommand(command: AnyCommand, argv: string[], io: CliIo): Promise<number> {
  let json = false;
  try {
    const args = CommandArgs.parse(argv, { ...command.options, ...COMMON_OPTIONS });
    json = args.flag('json');
    if (args.flag('help')) {
      io.stdout.write(commandUsage(command));
      return EXIT_OK;
    }
    checkPositionals(command, args.positionals);
    const input = await command.parse(args, io.stdin);
    let output: CommandOutput;
    if ('runLocally' in command) output = await command.runLocally(input, io.env);
    else {
      const connection = await resolveConnection(io.env, {
        address: args.string('address'),
        tlsCa: args.string('tls-ca'),
        tlsCert: args.string('tls-cert'),
        tlsKey: args.string('tls-key'),
      });
      const calls = new ServiceCalls(connection);
      output = await command.run(calls, input).finally(() => calls.close());
    }
    return printOutput(io, output, json);
  } catch (error) {
    if (error instanceof UsageError) return usageError(io, error.message, commandWords(command));
    if (error instanceof FailedCommand) return printOutput(io, error.output, json);
    // A CliFailure is worded for the operator; anything else is a bug, still one line, never a stack trace.
    const message =
      error instanceof CliFailure ? error.message : `unexpected error: ${(error as Error)?.message ?? error}`;
    io.stderr.write(`leadflow: ${message}\n`);
    return EXIT_FAILED;
  }
}

/** Runs one command line and returns the exit code: 0 done, 1 the command failed, 2 a usage error. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  // `leadflow help X Y` is `leadflow X Y --help`.
  const words = argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv;
  const [group, name, ...rest] = words;
  if (group === undefined) {
    io.stderr.write(`leadflow: no command given\n\n${programUsage(COMMANDS)}`);
    return EXIT_USAGE;
  }
  if (isHelp(group)) {
    io.stdout.write(programUsage(COMMANDS));
    return EXIT_OK;
  }
  const inGroup = COMMANDS.filter((command) => command.group === group);
  if (inGroup.length === 0) return usageError(io, `unknown command "${group}"`, 'leadflow');
  // A command named by its group alone (`leadflow report --by day`) takes every word after it.
  const groupCommand = inGroup.find((command) => command.name === '');
  if (groupCommand) return runCommand(groupCommand, words.slice(1), io);
  if (name !== undefined && isHelp(name)) {
    io.stdout.write(groupUsage(group, inGroup));
    return EXIT_OK;
  }
  const command = inGroup.find((candidate) => candidate.name === name);
  if (!command) {
    const message = name === undefined ? `${group}: which command?` : `unknown command "${group} ${name}"`;
    return usageError(io, message, `leadflow ${group}`);
  }
  return runCommand(command, rest, io);
}
