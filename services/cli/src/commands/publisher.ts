import { type Publisher, PublisherKey } from '@leadflow/proto/leadflow/admin/v1/admin';
import { parseWholeNumber } from '../args.js';
import { table } from '../format.js';
import type { Command } from './command.js';

const SHOWN_ONCE = 'This key is shown only once: store it now. leadflow keeps only its hash.';

function liveKeys(publisher: Publisher): PublisherKey[] {
  return publisher.keys.filter((key) => key.revokeTime === undefined);
}

function publisherJson(publisher: Publisher) {
  return {
    id: publisher.id,
    name: publisher.name,
    rateLimitPerMinute: publisher.rateLimitPerMinute,
    payoutShareBps: publisher.payoutShareBps,
    createTime: publisher.createTime?.toISOString(),
    liveKeys: liveKeys(publisher).map((key) => ({
      id: key.id,
      hint: key.hint,
      createTime: key.createTime?.toISOString(),
    })),
  };
}

function describeKey(key: PublisherKey): string {
  return `${key.id} (…${key.hint})`;
}

function publisherTable(publishers: Publisher[]): string {
  return table(
    ['ID', 'NAME', 'RATE LIMIT', 'PAYOUT SHARE', 'LIVE KEYS'],
    publishers.map((publisher) => [
      publisher.id,
      publisher.name,
      `${publisher.rateLimitPerMinute}/min`,
      `${publisher.payoutShareBps} bps`,
      liveKeys(publisher).map(describeKey).join(', ') || '-',
    ]),
  );
}

const create: Command<{ name: string; rateLimitPerMinute: number; payoutShareBps: number }> = {
  group: 'publisher',
  name: 'create',
  synopsis: '--name NAME [--rate-limit N] [--payout-share BPS]',
  summary: 'create a publisher and issue its first key',
  details: [
    '--name NAME          the publisher, as operators know it',
    '--rate-limit N       leads per rolling minute (default 60)',
    '--payout-share BPS   share of the buyer price paid to the publisher, in basis points (default 8000)',
    'With --json, prints {"id": ..., "key": ...}.',
  ],
  options: { name: { type: 'string' }, 'rate-limit': { type: 'string' }, 'payout-share': { type: 'string' } },
  positionals: [],
  parse: (args) => ({
    name: args.requiredString('name'),
    // Zero asks the service for its default.
    rateLimitPerMinute: args.wholeNumber('rate-limit', 1) ?? 0,
    payoutShareBps: args.wholeNumber('payout-share', 1) ?? 0,
  }),
  async run(calls, input) {
    const { publisher, key } = await calls.createPublisher(input);
    return {
      json: { id: publisher.id, key },
      text:
        `Created publisher "${publisher.name}" (${publisher.id}): ${publisher.rateLimitPerMinute} leads/min, ` +
        `payout share ${publisher.payoutShareBps} bps.\nKey: ${key}\n${SHOWN_ONCE}\n`,
    };
  },
};

const list: Command<void> = {
  group: 'publisher',
  name: 'list',
  synopsis: '',
  summary: 'list publishers with their live keys',
  details: ['Keys are shown by id and their last four characters.'],
  options: {},
  positionals: [],
  parse: () => undefined,
  async run(calls) {
    const publishers = await calls.listPublishers();
    return {
      json: { publishers: publishers.map(publisherJson) },
      text: publishers.length === 0 ? 'No publishers.\n' : publisherTable(publishers),
    };
  },
};

const rotateKey: Command<{ publisherId: string }> = {
  group: 'publisher',
  name: 'rotate-key',
  synopsis: 'PUBLISHER_ID',
  summary: 'issue a second live key; the current one works until revoked',
  details: [
    'A publisher holds at most two live keys: revoke one before rotating again.',
    'With --json, prints {"keyId": ..., "key": ...}.',
  ],
  options: {},
  positionals: ['PUBLISHER_ID'],
  parse: (args) => ({ publisherId: args.positionals[0] }),
  async run(calls, input) {
    const { keyInfo, key } = await calls.rotatePublisherKey(input.publisherId);
    return {
      json: { keyId: keyInfo.id, key },
      text:
        `New key ${keyInfo.id} for publisher ${input.publisherId}.\nKey: ${key}\n${SHOWN_ONCE}\n` +
        'The previous key keeps working until you revoke it: leadflow publisher revoke-key KEY_ID\n',
    };
  },
};

const revokeKey: Command<{ keyId: string }> = {
  group: 'publisher',
  name: 'revoke-key',
  synopsis: 'KEY_ID',
  summary: 'revoke a publisher key (effective within seconds)',
  details: ['KEY_ID is a key id as `leadflow publisher list` shows it, not the key itself.'],
  options: {},
  positionals: ['KEY_ID'],
  parse: (args) => ({ keyId: args.positionals[0] }),
  async run(calls, input) {
    const key = await calls.revokePublisherKey(input.keyId);
    return {
      json: PublisherKey.toJSON(key),
      text: `Revoked key ${describeKey(key)}; it stops working within seconds.\n`,
    };
  },
};

const setRateLimit: Command<{ publisherId: string; rateLimitPerMinute: number }> = {
  group: 'publisher',
  name: 'set-rate-limit',
  synopsis: 'PUBLISHER_ID N',
  summary: "set a publisher's limit of leads per rolling minute",
  details: ['N is a whole number of leads per rolling 60 seconds.'],
  options: {},
  positionals: ['PUBLISHER_ID', 'N'],
  parse: (args) => ({
    publisherId: args.positionals[0],
    rateLimitPerMinute: parseWholeNumber('N', args.positionals[1], 1),
  }),
  async run(calls, input) {
    const publisher = await calls.setPublisherRateLimit(input.publisherId, input.rateLimitPerMinute);
    return {
      json: publisherJson(publisher),
      text: `Publisher "${publisher.name}" (${publisher.id}) now takes up to ${publisher.rateLimitPerMinute} leads per minute.\n`,
    };
  },
};

export const publisherCommands = [create, list, rotateKey, revokeKey, setRateLimit];
