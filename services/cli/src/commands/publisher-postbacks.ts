import { PostbackDelivery, PostbackState, type PublisherPostback } from '@leadflow/proto/leadflow/admin/v1/postbacks';
import { UsageError } from '../errors.js';
import { fields, table, timestamp } from '../format.js';
import { messageJson } from '../json-output.js';
import type { Command } from './command.js';

const SECRET_ADVICE =
  'Give the signing secret to the publisher over a safe channel: it verifies the Leadflow-Signature header ' +
  '(docs/http-api.md, Postbacks).';

function postbackJson(postback: PublisherPostback) {
  return { publisherId: postback.publisherId, url: postback.url, local: postback.local };
}

function postbackText(postback: PublisherPostback): string {
  return fields([
    ['Publisher', postback.publisherId],
    ['Postback URL', postback.url || '- (none: no events are sent)'],
    ['Local', postback.local ? 'yes (http:// and private addresses allowed)' : 'no'],
  ]);
}

const update: Command<{ publisherId: string; url: string; local: boolean }> = {
  group: 'publisher',
  name: 'update',
  synopsis: 'PUBLISHER_ID --postback-url URL [--postback-local]',
  summary: "set where a publisher is told of its leads' outcomes after their answer",
  details: [
    '--postback-url URL   https URL the signed lead events are posted to; "" removes it',
    '--postback-local     allow http:// and private or loopback addresses (a receiver on your own network)',
    'The signing secret is shown by `leadflow publisher postback-secret PUBLISHER_ID`.',
  ],
  options: { 'postback-url': { type: 'string' }, 'postback-local': { type: 'boolean' } },
  positionals: ['PUBLISHER_ID'],
  parse: (args) => {
    const url = args.string('postback-url');
    if (url === undefined) throw new UsageError('--postback-url is required (give "" to remove it)');
    return { publisherId: args.positionals[0], url: url.trim(), local: args.flag('postback-local') };
  },
  async run(calls, input) {
    const postback = await calls.setPublisherPostback(input.publisherId, input.url, input.local);
    return { json: postbackJson(postback), text: postbackText(postback) };
  },
};

const postbackSecret: Command<{ publisherId: string; rotate: boolean }> = {
  group: 'publisher',
  name: 'postback-secret',
  synopsis: 'PUBLISHER_ID [--rotate]',
  summary: "show (or replace) the secret a publisher's postbacks are signed with",
  details: [
    '--rotate   a new secret: events are signed with it from now on, and the old one stops verifying',
    'With --json, prints {"publisherId": ..., "signingSecret": ...}.',
  ],
  options: { rotate: { type: 'boolean' } },
  positionals: ['PUBLISHER_ID'],
  parse: (args) => ({ publisherId: args.positionals[0], rotate: args.flag('rotate') }),
  async run(calls, input) {
    const postback = input.rotate
      ? await calls.rotatePostbackSecret(input.publisherId)
      : await calls.getPublisherPostback(input.publisherId);
    return {
      json: { publisherId: postback.publisherId, signingSecret: postback.signingSecret },
      text: `Signing secret of publisher ${postback.publisherId}: ${postback.signingSecret}\n${SECRET_ADVICE}\n`,
    };
  },
};

const STATE_NAMES: Record<PostbackState, string> = {
  [PostbackState.POSTBACK_STATE_UNSPECIFIED]: '?',
  [PostbackState.POSTBACK_STATE_PENDING]: 'pending',
  [PostbackState.POSTBACK_STATE_DELIVERED]: 'delivered',
  [PostbackState.POSTBACK_STATE_FAILED]: 'failed',
  [PostbackState.UNRECOGNIZED]: '?',
};

function deliveryRow(delivery: PostbackDelivery): string[] {
  const when =
    delivery.state === PostbackState.POSTBACK_STATE_PENDING
      ? `next ${timestamp(delivery.nextAttemptTime)}`
      : timestamp(delivery.deliverTime);
  return [
    delivery.eventId,
    delivery.type,
    delivery.leadId,
    STATE_NAMES[delivery.state],
    String(delivery.attempts),
    delivery.lastError || '-',
    timestamp(delivery.createTime),
    when,
  ];
}

const postbacks: Command<{ publisherId: string; limit: number }> = {
  group: 'publisher',
  name: 'postbacks',
  synopsis: 'PUBLISHER_ID [--limit N]',
  summary: "a publisher's recent postback events: delivered, waiting for a retry, or failed",
  details: [
    '--limit N   how many of the most recent events (default 50, at most 1000)',
    'A pending event is retried with backoff for a day after it was created, then marked failed.',
  ],
  options: { limit: { type: 'string' } },
  positionals: ['PUBLISHER_ID'],
  parse: (args) => ({ publisherId: args.positionals[0], limit: Math.min(args.wholeNumber('limit', 1) ?? 50, 1000) }),
  async run(calls, input) {
    const deliveries = await calls.listPostbackDeliveries(input.publisherId, input.limit);
    return {
      json: { deliveries: deliveries.map((delivery) => messageJson(PostbackDelivery, delivery)) },
      text:
        deliveries.length === 0
          ? 'No postback events.\n'
          : table(
              ['EVENT', 'TYPE', 'LEAD', 'STATE', 'TRIES', 'LAST ERROR', 'CREATED', 'DELIVERED'],
              deliveries.map(deliveryRow),
            ),
    };
  },
};

export const publisherPostbackCommands = [update, postbackSecret, postbacks];
