/** A command line that cannot be run as written: reported with the usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A command that could not be carried out; the message is one line for the operator, exit code 1. */
export class CliFailure extends Error {
  override name = 'CliFailure';
}
