/** A request that cannot be built from the buyer's definition; nothing is sent. */
export class RequestBuildError extends Error {
  constructor(
    readonly code: 'no_test_url' | 'conflicting_keys',
    message: string,
  ) {
    super(message);
    this.name = 'RequestBuildError';
  }
}
