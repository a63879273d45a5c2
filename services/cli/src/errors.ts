import type { CommandOutput } from './commands/command.js';

/** A command line that cannot be run as written: reported with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Why the service refused a call (google.rpc.ErrorInfo): its stable reason and the values that go with it. */
export interface ServiceRefusal {
  reason: string;
  metadata: Record<string, string>;
}

/** A command that could not be carried out; the message is one line for the operator, exit code 1. */
export class CliFailure extends Error {
  override name = 'CliFailure';
  constructor(
    message: string,
    /** Set when the service refused the call, for a command to word the refusal in its own terms. */
    readonly refusal?: ServiceRefusal,
  ) {
    super(message);
  }
}

/**
 * `error` in the command's words when it is the service's refusal `reason` (the service names its API's
 * fields, a command its options); any other error as it is.
 */
export function reworded(
  error: unknown,
  reason: string,
  message: (metadata: Record<string, string>) => string,
): unknown {
  if (!(error instanceof CliFailure) || error.refusal?.reason !== reason) return error;
  return new CliFailure(message(error.refusal.metadata), error.refusal);
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
