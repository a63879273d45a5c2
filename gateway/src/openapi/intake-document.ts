import { MAX_CLICKID_LENGTH, valueSchema } from '@leadflow/core/lead-field-rules';
import { LEAD_FIELDS, type LeadField, leadFieldFacts, REQUIRED_LEAD_FIELDS } from '@leadflow/core/lead-fields';
import { type ErrorCode, messageOf, statusOf } from '../errors.js';
import { MAX_BODY_BYTES } from '../intake/lead-body.js';

type Schema = Record<string, unknown>;

/** A field as the Lead schema describes it: every value is a JSON string, its form and meaning from the catalogue. */
function fieldSchema(field: LeadField): Schema {
  const { rule, description, example } = leadFieldFacts(field);
  return { type: 'string', description, ...valueSchema(rule), ...(example === undefined ? {} : { example }) };
}

const RETRIES =
  'Retries: on a 5xx answer (or no answer at all) post the same body again, with exponential backoff. ' +
  'A lead is identified by your clickid: a retry with the same clickid and lead (the same values, however spelt: ' +
  'a live lead is the same with testMode "0" or without it) replays the stored answer ' +
  '(same leadId, no second sale), waiting for the first request if it is still being processed. ' +
  'The same clickid with a different body is a 400 with errors.clickid. ' +
  'Answers 400, 401 and 429 are not stored: correct the request, or wait Retry-After seconds, and post again.';

function rateLimitText(defaultLimit: number): string {
  return (
    `Rate limit: ${defaultLimit} requests in any rolling 60 seconds per publisher by default ` +
    '(all keys of a publisher share it; the limit can be set per publisher). Every request with a live key counts, valid or not. ' +
    'Failed authentications (a key of the wrong shape, unknown or revoked) are limited per client address, under the policy "auth-failures". ' +
    'Answers carry RateLimit-Policy and RateLimit, except those given before the key is checked (a 400 with errors.url or errors.request, 405, 408, 417, 431, and a 503 when the key could not be checked); a 429 also carries Retry-After. ' +
    'Answers 401, 413 and 429 close the connection.'
  );
}

const rateLimitHeaders = {
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
};

function json(schemaName: string): Schema {
  return { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` } } };
}

interface ErrorAnswer {
  /** The codes answered with this status, each with its own message. */
  codes: [ErrorCode, ...ErrorCode[]];
  description: string;
  retryAfter?: boolean;
  /** Given before the key is checked: without the rate-limit headers. */
  beforeTheKey?: boolean;
}

/** The answers either path gives: none is about a lead's body. */
const REQUEST_ERRORS: ErrorAnswer[] = [
  { codes: ['UNAUTHORIZED'], description: 'The webmaster key is unknown or revoked.' },
  {
    codes: ['REQUEST_TIMEOUT'],
    description: 'The headers, or the whole request, did not arrive in time. The connection is closed.',
    beforeTheKey: true,
  },
  {
    codes: ['EXPECTATION_FAILED'],
    description: 'The request has an Expect header other than 100-continue.',
    beforeTheKey: true,
  },
  {
    codes: ['RATE_LIMITED'],
    description: 'Too many requests. Wait Retry-After seconds (also `retryAfter` in the body).',
    retryAfter: true,
  },
  {
    codes: ['HEADERS_TOO_LARGE'],
    description: 'The request headers are over 16 KiB. The connection is closed.',
    beforeTheKey: true,
  },
  {
    codes: ['INTERNAL_SERVER_ERROR'],
    description: 'Internal error. Retry with backoff (a lead: same clickid and body).',
  },
  {
    codes: ['SERVICE_UNAVAILABLE'],
    description:
      'The service is temporarily unavailable. Retry after Retry-After seconds with backoff (a lead: same clickid and body).',
    retryAfter: true,
  },
];

/** The intake's answers about the body it was sent, and its deadline. */
const INTAKE_ERRORS: ErrorAnswer[] = [
  { codes: ['PAYLOAD_TOO_LARGE'], description: `The body is larger than ${MAX_BODY_BYTES / 1024} KiB.` },
  {
    codes: ['UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_ENCODING', 'UNSUPPORTED_CHARSET'],
    description:
      'The Content-Type is not application/json, its charset is not UTF-8, or the body is compressed (any Content-Encoding).',
  },
  {
    codes: ['GATEWAY_TIMEOUT'],
    description:
      'The lead was not processed in time. Retry with the same clickid and body: a sale made meanwhile is replayed.',
  },
];

/** The status look-up's own answers. */
const LEAD_STATUS_ERRORS: ErrorAnswer[] = [
  { codes: ['NOT_FOUND'], description: 'You sent no lead with this clickid.' },
  { codes: ['GATEWAY_TIMEOUT'], description: "The lead's outcome was not found in time. Ask again." },
];

function errorExample(code: ErrorCode): Schema {
  return {
    value: { status: 'error', message: messageOf(code), ...(code === 'RATE_LIMITED' ? { retryAfter: 12 } : {}) },
  };
}

function errorAnswer({ codes, description, retryAfter, beforeTheKey }: ErrorAnswer): Schema {
  return {
    description,
    headers: {
      ...(beforeTheKey ? {} : rateLimitHeaders),
      ...(retryAfter ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}),
    },
    content: {
      'application/json': {
        schema: { $ref: `#/components/schemas/${codes[0] === 'RATE_LIMITED' ? 'RateLimitedError' : 'ErrorMessage'}` },
        examples: Object.fromEntries(codes.map((code) => [code, errorExample(code)])),
      },
    },
  };
}

/** Each answer under its status. */
function errorAnswers(answers: ErrorAnswer[]): Record<string, Schema> {
  return Object.fromEntries(answers.map((answer) => [String(statusOf(answer.codes[0])), errorAnswer(answer)]));
}

/** Example `errors` of a 400 that is not about the lead: a path that is not a URL, a request that is not HTTP/1.1. */
const REQUEST_VALIDATION_EXAMPLES = {
  url: { summary: 'A path that is not a valid URL (bad percent-encoding)', value: { url: 'is not a valid URL' } },
  request: {
    summary: 'A request that is not HTTP/1.1: a bad request line or header, no Host header',
    value: { request: 'is not valid HTTP/1.1' },
  },
};

function validationAnswer(description: string, examples: Record<string, { summary: string; value: Schema }>): Schema {
  return {
    description: `${description} Messages never repeat the submitted value.`,
    headers: rateLimitHeaders,
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/ValidationError' },
        examples: Object.fromEntries(
          Object.entries(examples).map(([name, { summary, value }]) => [
            name,
            { summary, value: { status: 'error', errors: value } },
          ]),
        ),
      },
    },
  };
}

/** A path's description: what another method on it gets (a Path Item lists the methods it takes only). */
function otherMethods(allow: string): string {
  return `Any other method on this path is answered ${statusOf('METHOD_NOT_ALLOWED')} with Allow: ${allow} (components/responses/MethodNotAllowed), before the key is checked.`;
}

const WEBMASTER_KEY = {
  name: 'webmasterKey',
  in: 'path',
  required: true,
  description: 'Your webmaster key, as issued by leadflow. It is your only credential: keep it secret.',
  schema: { type: 'string' },
};

const LEAD_ID = { type: 'string', description: 'Identifier assigned to the lead.' };
const PROCESSING_TIME = {
  type: 'number',
  description: 'Milliseconds from the gateway receiving the request to the answer being written.',
};

const LEAD_STATUS =
  "The lead's outcome now, in the intake answer's shape: sold or rejected, or pending while the lead is held " +
  'until the buyer its post went to confirms it (the intake answered it rejected with the reason that it is held), ' +
  'while it is still being sold, or while it waits for your retry (a 503 or 504 left it without an outcome: send it ' +
  'again with the same clickid; with no retry it is closed as rejected, by default 15 minutes after it arrived). ' +
  'A held lead settles later: ask again, or register a postback URL to be told. ' +
  'A sold lead its buyer returned is returned, as the lead.returned postback says: price is what the return ' +
  "takes back from your payout, reason the buyer's reason code. " +
  "Only your own leads are found: a clickid you did not send is a 404. processingTime is this request's.";

/** The OpenAPI 3.1 description of the public intake endpoint and its lead status endpoint. */
export function intakeOpenApiDocument(defaultRateLimitPerMinute: number): Schema {
  const leadProperties = Object.fromEntries(LEAD_FIELDS.map((field) => [field, fieldSchema(field)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'leadflow lead intake',
      version: '1.0.0',
      description:
        'Post one consumer-loan lead per request and get the outcome of the sale attempt: sold, rejected, or the fields that failed validation.',
    },
    paths: {
      '/api/intake/{webmasterKey}': {
        description: otherMethods('POST'),
        post: {
          operationId: 'submitLead',
          summary: 'Submit one lead',
          description: `${rateLimitText(defaultRateLimitPerMinute)}\n\n${RETRIES}`,
          parameters: [WEBMASTER_KEY],
          requestBody: { required: true, content: json('Lead') },
          responses: {
            '200': {
              description:
                'The lead was processed: sold (redirect the end user to redirectUrl when present) or rejected. Both carry processingTime.',
              headers: rateLimitHeaders,
              content: {
                'application/json': {
                  schema: {
                    oneOf: [
                      { $ref: '#/components/schemas/SoldAnswer' },
                      { $ref: '#/components/schemas/RejectedAnswer' },
                    ],
                    discriminator: { propertyName: 'status' },
                  },
                },
              },
            },
            '400': validationAnswer(
              'The lead was not processed: fields missing or invalid (one entry per field), a body that is not UTF-8, not JSON or not an object (errors.body), a clickid reused with a different body (errors.clickid), or a request that is not valid (errors.url, errors.request).',
              {
                fields: {
                  summary: 'Fields missing or invalid',
                  value: { ssn: 'must be 9 digits', email: 'is required' },
                },
                body: { summary: 'A body that is not UTF-8 JSON of one object', value: { body: 'must be valid JSON' } },
                ...REQUEST_VALIDATION_EXAMPLES,
              },
            ),
            ...errorAnswers([...REQUEST_ERRORS, ...INTAKE_ERRORS]),
          },
        },
      },
      '/api/intake/{webmasterKey}/leads/{clickid}': {
        description: otherMethods('GET, HEAD'),
        get: {
          operationId: 'getLeadStatus',
          summary: 'The outcome of a lead you sent',
          description: `${LEAD_STATUS}\n\n${rateLimitText(defaultRateLimitPerMinute)}`,
          parameters: [
            WEBMASTER_KEY,
            {
              name: 'clickid',
              in: 'path',
              required: true,
              description:
                'The clickid you sent the lead with (percent-encoded in the path). Surrounding whitespace is ignored, as the intake ignores it.',
              schema: { type: 'string', minLength: 1, maxLength: MAX_CLICKID_LENGTH },
            },
          ],
          responses: {
            '200': {
              description: 'The lead is sold, rejected, pending or returned. Carries no personal field.',
              headers: rateLimitHeaders,
              content: {
                'application/json': {
                  schema: {
                    oneOf: [
                      { $ref: '#/components/schemas/SoldAnswer' },
                      { $ref: '#/components/schemas/RejectedAnswer' },
                      { $ref: '#/components/schemas/PendingAnswer' },
                      { $ref: '#/components/schemas/ReturnedAnswer' },
                    ],
                    discriminator: { propertyName: 'status' },
                  },
                },
              },
            },
            '400': validationAnswer(
              'The request is not valid: a path that is not a URL (errors.url), or not HTTP/1.1 (errors.request).',
              REQUEST_VALIDATION_EXAMPLES,
            ),
            ...errorAnswers([...REQUEST_ERRORS, ...LEAD_STATUS_ERRORS]),
          },
        },
      },
    },
    components: {
      responses: {
        MethodNotAllowed: {
          ...errorAnswer({
            codes: ['METHOD_NOT_ALLOWED'],
            description: 'The answer to a method the path does not take.',
            beforeTheKey: true,
          }),
          headers: {
            Allow: { description: 'The methods the path takes.', schema: { type: 'string' }, example: 'POST' },
          },
        },
      },
      schemas: {
        Lead: {
          type: 'object',
          description:
            'The lead, as UTF-8 JSON. Every value is a JSON string, numbers and dates included; any other JSON type is a 400 for that field. Surrounding whitespace is ignored: each value is trimmed before it is checked and stored, and the patterns and lengths below describe it trimmed. An empty string counts as missing. Unknown fields are ignored, __proto__ and constructor included.',
          required: [...REQUIRED_LEAD_FIELDS],
          properties: leadProperties,
          additionalProperties: true,
        },
        SoldAnswer: {
          type: 'object',
          required: ['leadId', 'status', 'price', 'buyerId', 'processingTime'],
          properties: {
            leadId: LEAD_ID,
            status: { const: 'sold' },
            price: { type: 'number', description: 'Your payout for the sale, in USD.' },
            redirectUrl: {
              type: 'string',
              format: 'uri',
              description: 'Where to redirect the end user; absent when the buyer gave none.',
            },
            buyerId: { type: 'string', description: 'Identifier of the buyer.' },
            processingTime: PROCESSING_TIME,
          },
        },
        RejectedAnswer: {
          type: 'object',
          required: ['leadId', 'status', 'reason', 'processingTime'],
          properties: {
            leadId: LEAD_ID,
            status: { const: 'rejected' },
            reason: { type: 'string', description: 'Why no sale happened.' },
            processingTime: PROCESSING_TIME,
          },
        },
        PendingAnswer: {
          type: 'object',
          required: ['leadId', 'status', 'reason', 'processingTime'],
          properties: {
            leadId: LEAD_ID,
            status: { const: 'pending' },
            reason: { type: 'string', description: 'Why the lead has no final outcome yet.' },
            processingTime: PROCESSING_TIME,
          },
        },
        ReturnedAnswer: {
          type: 'object',
          required: ['leadId', 'status', 'price', 'buyerId', 'reason', 'processingTime'],
          properties: {
            leadId: LEAD_ID,
            status: { const: 'returned' },
            price: {
              type: 'number',
              description:
                'What the return takes back from your payout for the sale, in USD: all of it, the share your clawback terms say, or 0 when the network bears the return.',
            },
            buyerId: { type: 'string', description: 'Identifier of the buyer that bought the lead and returned it.' },
            reason: { type: 'string', description: "The buyer's reason code for the return, such as fraud." },
            processingTime: PROCESSING_TIME,
          },
        },
        ValidationError: {
          type: 'object',
          required: ['status', 'errors'],
          properties: {
            status: { const: 'error' },
            errors: {
              type: 'object',
              description:
                'Name -> message: a lead field\'s name, "body" for the body as a whole (not UTF-8, not JSON, not an object, not as long as its Content-Length), "url" for a path that is not a valid URL, "request" for a request that is not valid HTTP/1.1 (a bad request line or header, no Host header).',
              additionalProperties: { type: 'string' },
            },
          },
        },
        ErrorMessage: {
          type: 'object',
          required: ['status', 'message'],
          properties: { status: { const: 'error' }, message: { type: 'string' } },
        },
        RateLimitedError: {
          type: 'object',
          required: ['status', 'message', 'retryAfter'],
          properties: {
            status: { const: 'error' },
            message: { type: 'string' },
            retryAfter: { type: 'integer', minimum: 1, description: 'Seconds to wait before the next request.' },
          },
        },
      },
      headers: {
        'RateLimit-Policy': {
          description:
            'The limit that applies (draft-ietf-httpapi-ratelimit-headers): "default" for a publisher\'s requests, "auth-failures" for a client address\'s failed authentications; q = requests allowed, w = window in seconds.',
          schema: { type: 'string' },
          example: `"default";q=${defaultRateLimitPerMinute};w=60`,
        },
        RateLimit: {
          description: 'Requests still available (r) and seconds until more become available (t).',
          schema: { type: 'string' },
          example: `"default";r=${defaultRateLimitPerMinute - 1};t=0`,
        },
        'Retry-After': {
          description: 'Seconds to wait before posting again.',
          schema: { type: 'integer', minimum: 1 },
        },
      },
    },
  };
}
