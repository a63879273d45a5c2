import type { CommandOutput } from './commands/command.js';

/** A command line that cannot be run as written: reported with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command that could not be carried out; the message is one line for the operator, exit code 1. */
export class CliFailure extends Error {
  override name = 'CliFailure';
}

/**
 * A command that fails with an answer in both forms before it reaches the service (mistakes in a
 * document): printed as a failed CommandOutput is, `--json` included.
 */
export class FailedCommand extends Error {
  override name = 'FailedCommand';

  constructor(readonly output: CommandOutput) {
    super(output.text);
  }
}
