import { PAYOUT_SHARE_BPS, RATE_LIMIT_PER_MINUTE } from '@leadflow/distribution';
import { type Publisher, PublisherKey } from '@leadflow/proto/leadflow/admin/v1/admin';
import { parseWholeNumber } from '../args.js';
import { UsageError } from '../errors.js';
import { table } from '../format.js';
import { messageJson } from '../json-output.js';
import type { Command } from './command.js';

const CLAWBACK_CHOICES = 'full, none (absorbed by the network) or a percentage such as 50%';

/** "full" (10000 bps), "none" (0) or a percentage with at most two decimals ("50%", "37.5") in basis points. */
function parseClawback(what: string, raw: string): number {
  const text = raw.trim().toLowerCase();
  if (text === 'full') return 10_000;
  if (text === 'none') return 0;
  const match = /^(\d{1,3})(?:\.(\d{1,2}))?%?$/.exec(text);
  const bps = match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')) : Number.NaN;
  if (!(bps >= 0 && bps <= 10_000)) throw new UsageError(`${what} must be ${CLAWBACK_CHOICES}`);
  return bps;
}

function describeClawback(bps: number): string {
  if (bps === 10_000) return 'full';
  if (bps === 0) return 'none';
  return `${bps / 100}%`;
}

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
    clawbackBps: publisher.clawbackBps,
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
    ['ID', 'NAME', 'RATE LIMIT', 'PAYOUT SHARE', 'CLAWBACK', 'LIVE KEYS'],
    publishers.map((publisher) => [
      publisher.id,
      publisher.name,
      `${publisher.rateLimitPerMinute}/min`,
      `${publisher.payoutShareBps} bps`,
      describeClawback(publisher.clawbackBps),
      liveKeys(publisher).map(describeKey).join(', ') || '-',
    ]),
  );
}

const create: Command<{
  name: string;
  rateLimitPerMinute: number;
  payoutShareBps: number;
  clawbackBps: number | undefined;
}> = {
  group: 'publisher',
  name: 'create',
  synopsis: '--name NAME [--rate-limit N] [--payout-share BPS] [--clawback full|none|PERCENT]',
  summary: 'create a publisher and issue its first key',
  details: [
    '--name NAME          the publisher, as operators know it',
    `--rate-limit N       leads per rolling minute, ${RATE_LIMIT_PER_MINUTE.min} to ${RATE_LIMIT_PER_MINUTE.max} (default 60)`,
    `--payout-share BPS   share of the buyer price paid to the publisher, in basis points, ${PAYOUT_SHARE_BPS.min} to ${PAYOUT_SHARE_BPS.max}`,
    '                     (10000 is all of it; default 8000)',
    "--clawback TERMS     how much of a returned lead's payout is taken back: full (default), none (the network",
    '                     absorbs it) or a percentage such as 50%',
    'With --json, prints {"id": ..., "key": ...}.',
  ],
  options: {
    name: { type: 'string' },
    'rate-limit': { type: 'string' },
    'payout-share': { type: 'string' },
    clawback: { type: 'string' },
  },
  positionals: [],
  parse: (args) => ({
    name: args.requiredString('name'),
    // Zero asks the service for its default.
    rateLimitPerMinute: args.wholeNumber('rate-limit', RATE_LIMIT_PER_MINUTE.min, RATE_LIMIT_PER_MINUTE.max) ?? 0,
    payoutShareBps: args.wholeNumber('payout-share', PAYOUT_SHARE_BPS.min, PAYOUT_SHARE_BPS.max) ?? 0,
    clawbackBps:
      args.string('clawback') === undefined ? undefined : parseClawback('--clawback', args.string('clawback')!),
  }),
  async run(calls, input) {
    const { publisher, key } = await calls.createPublisher(input);
    return {
      json: { id: publisher.id, key },
      text:
        `Created publisher "${publisher.name}" (${publisher.id}): ${publisher.rateLimitPerMinute} leads/min, ` +
        `payout share ${publisher.payoutShareBps} bps, clawback ${describeClawback(publisher.clawbackBps)}.\nKey: ${key}\n${SHOWN_ONCE}\n`,
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
      json: messageJson(PublisherKey, key),
      text: `Revoked key ${describeKey(key)}; it stops working within seconds.\n`,
    };
  },
};

const setRateLimit: Command<{ publisherId: string; rateLimitPerMinute: number }> = {
  group: 'publisher',
  name: 'set-rate-limit',
  synopsis: 'PUBLISHER_ID N',
  summary: "set a publisher's limit of leads per rolling minute",
  details: [
    `N is a whole number of leads per rolling 60 seconds, ${RATE_LIMIT_PER_MINUTE.min} to ${RATE_LIMIT_PER_MINUTE.max}.`,
  ],
  options: {},
  positionals: ['PUBLISHER_ID', 'N'],
  parse: (args) => ({
    publisherId: args.positionals[0],
    rateLimitPerMinute: parseWholeNumber(
      'N',
      args.positionals[1],
      RATE_LIMIT_PER_MINUTE.min,
      RATE_LIMIT_PER_MINUTE.max,
    ),
  }),
  async run(calls, input) {
    const publisher = await calls.setPublisherRateLimit(input.publisherId, input.rateLimitPerMinute);
    return {
      json: publisherJson(publisher),
      text: `Publisher "${publisher.name}" (${publisher.id}) now takes up to ${publisher.rateLimitPerMinute} leads per minute.\n`,
    };
  },
};

const setClawback: Command<{ publisherId: string; clawbackBps: number }> = {
  group: 'publisher',
  name: 'set-clawback',
  synopsis: 'PUBLISHER_ID full|none|PERCENT',
  summary: "set how much of a returned lead's payout is taken back from a publisher",
  details: [
    'full: the whole payout; none: nothing, the network absorbs the return; PERCENT (such as 50%): that share.',
    'Applies to returns recorded from now on; see docs/returns.md.',
  ],
  options: {},
  positionals: ['PUBLISHER_ID', 'TERMS'],
  parse: (args) => ({
    publisherId: args.positionals[0]!,
    clawbackBps: parseClawback('TERMS', args.positionals[1]!),
  }),
  async run(calls, input) {
    const publisher = await calls.setPublisherClawback(input.publisherId, input.clawbackBps);
    return {
      json: publisherJson(publisher),
      text: `Publisher "${publisher.name}" (${publisher.id}): clawback on returns ${describeClawback(publisher.clawbackBps)}.\n`,
    };
  },
};

export const publisherCommands = [create, list, rotateKey, revokeKey, setRateLimit, setClawback];
