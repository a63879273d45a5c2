import { type ErrorCode, messageOf, statusOf } from '@leadflow/gateway/src/errors';
import { intakeOpenApiDocument } from '@leadflow/gateway/src/openapi/intake-document';
import { expect } from 'chai';

type Answer = { headers?: Record<string, unknown>; content: Record<string, { examples: Record<string, Example> }> };
type Example = { value: { status: string; message?: string; errors?: Record<string, string> } };
type Operation = { responses: Record<string, Answer> };

const document = intakeOpenApiDocument(60) as {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, Answer>; schemas: Record<string, { properties: Record<string, unknown> }> };
};
const post = document.paths['/api/intake/{webmasterKey}']!.post!;
const get = document.paths['/api/intake/{webmasterKey}/leads/{clickid}']!.get!;

/** Where each answer of the gateway can come from; a new code fails to compile until it is placed here. */
const ANSWERED_BY: Record<Exclude<ErrorCode, 'BAD_REQUEST' | 'METHOD_NOT_ALLOWED'>, Operation[]> = {
  UNAUTHORIZED: [post, get],
  NOT_FOUND: [get],
  REQUEST_TIMEOUT: [post, get],
  PAYLOAD_TOO_LARGE: [post],
  UNSUPPORTED_MEDIA_TYPE: [post],
  UNSUPPORTED_ENCODING: [post],
  UNSUPPORTED_CHARSET: [post],
  EXPECTATION_FAILED: [post, get],
  RATE_LIMITED: [post, get],
  HEADERS_TOO_LARGE: [post, get],
  INTERNAL_SERVER_ERROR: [post, get],
  SERVICE_UNAVAILABLE: [post, get],
  GATEWAY_TIMEOUT: [post, get],
};

function examplesOf(answer: Answer | undefined): Example['value'][] {
  return Object.values(answer?.content['application/json']?.examples ?? {}).map((example) => example.value);
}

describe('intakeOpenApiDocument', () => {
  for (const [code, operations] of Object.entries(ANSWERED_BY) as Array<[ErrorCode, Operation[]]>) {
    it(`lists ${statusOf(code)} (${code}) with its message wherever the gateway answers it`, () => {
      for (const operation of operations) {
        const messages = examplesOf(operation.responses[String(statusOf(code))]).map((value) => value.message);
        expect(messages, operation === post ? 'POST' : 'GET').to.include(messageOf(code));
      }
    });
  }

  it('lists every kind of 400: fields, body, url and request on the intake, url and request on the status', () => {
    const errorNames = (operation: Operation) =>
      examplesOf(operation.responses['400']).flatMap((value) => Object.keys(value.errors ?? {}));
    expect(errorNames(post)).to.include.members(['ssn', 'body', 'url', 'request']);
    expect(errorNames(get)).to.have.members(['url', 'request']);
    const errors = document.components.schemas.ValidationError!.properties.errors as { description: string };
    for (const name of ['"body"', '"url"', '"request"']) expect(errors.description).to.include(name);
  });

  it('describes the 405 other methods get, with Allow and its message', () => {
    const answer = document.components.responses.MethodNotAllowed!;
    expect(answer.headers).to.have.property('Allow');
    expect(examplesOf(answer).map((value) => value.message)).to.deep.equal([messageOf('METHOD_NOT_ALLOWED')]);
  });

  it('lists no answer the gateway does not give', () => {
    expect(Object.keys(post.responses)).to.have.members([
      '200',
      '400',
      '401',
      '408',
      '413',
      '415',
      '417',
      '429',
      '431',
      '500',
      '503',
      '504',
    ]);
    expect(Object.keys(get.responses)).to.have.members([
      '200',
      '400',
      '401',
      '404',
      '408',
      '417',
      '429',
      '431',
      '500',
      '503',
      '504',
    ]);
  });
});
