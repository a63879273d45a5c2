/** A request that cannot be built from the buyer's definition; nothing is sent. */
export class RequestBuildError extends Error {
  constructor(
    readonly code:
      | 'no_test_url'
      | 'conflicting_keys'
      /** A ${env:...} or ${secret:...} the service cannot resolve (any more), or a value it resolves to that cannot be sent. */
      | 'unresolved_reference'
      /** A value holds a character XML 1.0 cannot carry (a control character). */
      | 'invalid_xml_character'
      /** An XML mapping or template the parser would have refused. */
      | 'invalid_xml_mapping',
    message: string,
  ) {
    super(message);
    this.name = 'RequestBuildError';
  }
}
