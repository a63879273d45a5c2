import type { Integration } from './buyer-definition.js';
import type { BuyerValues } from './buyer-values.js';
import { parseExchange } from './parse-exchange.js';
import { keyPath, type Problems } from './problems.js';
import {
  isAbsent,
  orDefault,
  readChoice,
  readDuration,
  readFlag,
  readObject,
  readWholeNumber,
  required,
} from './read-values.js';

const KEYS = [
  'mode',
  'ping',
  'post',
  'timeoutMs',
  'pingTimeoutMs',
  'postTimeoutMs',
  'local',
  'testBehaviour',
  'onTimeout',
  'statusLookup',
  'settleAfter',
] as const;
const MODES = ['direct_post', 'ping_post'] as const;
const TEST_BEHAVIOURS = ['test_url', 'accept', 'reject'] as const;
const TIMEOUT_POLICIES = ['unconfirmed', 'decline'] as const;

const DEFAULT_TIMEOUT_MS = 3000;
const MAX_TIMEOUT_MS = 60_000;
/** A held lead is settled by policy no later than 30 days after its post, and only after the post's timeout. */
const MAX_SETTLE_AFTER_MS = 30 * 86_400_000;

export interface IntegrationContext {
  /** Where ${env:...} and ${secret:...} are looked up. */
  values: BuyerValues;
  /** The buyer's pricing is bid: the answer that carries the bid (the ping's, or a direct post's) must locate it. */
  pricedByBid: boolean;
}

/**
 * `mode` (ping_post when a ping is given, else direct_post), `ping`, `post`, `timeoutMs` (with
 * `pingTimeoutMs` and `postTimeoutMs` for one kind of call), `local` (http://
 * allowed), `testBehaviour` (what a test-mode lead gets: accept, reject, or a call to the testUrl),
 * `onTimeout` (unconfirmed or decline), `statusLookup` (how to ask whether the buyer holds a lead) and
 * `settleAfter` (when a post never answered closes its lead as not sold).
 */
export function parseIntegration(
  value: unknown,
  path: string,
  { values, pricedByBid }: IntegrationContext,
  problems: Problems,
): Integration | undefined {
  const fields = readObject(value, path, KEYS, problems);
  if (!fields) return undefined;
  const start = problems.found.length;
  const at = (key: string): string => keyPath(path, key);
  const mode = orDefault(fields.mode, isAbsent(fields.ping) ? 'direct_post' : 'ping_post', (v) =>
    readChoice(v, at('mode'), MODES, problems),
  );
  const timeoutMs = orDefault(fields.timeoutMs, DEFAULT_TIMEOUT_MS, (v) =>
    readWholeNumber(v, at('timeoutMs'), problems, 1, MAX_TIMEOUT_MS),
  );
  const pingTimeoutMs = isAbsent(fields.pingTimeoutMs)
    ? undefined
    : readWholeNumber(fields.pingTimeoutMs, at('pingTimeoutMs'), problems, 1, MAX_TIMEOUT_MS);
  const postTimeoutMs = isAbsent(fields.postTimeoutMs)
    ? undefined
    : readWholeNumber(fields.postTimeoutMs, at('postTimeoutMs'), problems, 1, MAX_TIMEOUT_MS);
  const local = orDefault(fields.local, false, (v) => readFlag(v, at('local'), problems));
  const testBehaviour = orDefault(fields.testBehaviour, 'accept', (v) =>
    readChoice(v, at('testBehaviour'), TEST_BEHAVIOURS, problems),
  );
  const onTimeout = orDefault(fields.onTimeout, 'unconfirmed', (v) =>
    readChoice(v, at('onTimeout'), TIMEOUT_POLICIES, problems),
  );
  const settleAfterMs = isAbsent(fields.settleAfter)
    ? undefined
    : readDuration(fields.settleAfter, at('settleAfter'), problems, 1000, MAX_SETTLE_AFTER_MS);
  const postTimeout = postTimeoutMs ?? timeoutMs;
  if (settleAfterMs !== undefined && postTimeout !== undefined && settleAfterMs <= postTimeout)
    problems.at(
      at('settleAfter'),
      `must be longer than the post's timeout (${postTimeout} ms): its answer may come until then`,
    );
  if (onTimeout === 'decline' && !isAbsent(fields.settleAfter))
    problems.at(at('settleAfter'), 'is used only with onTimeout unconfirmed: a decline holds no lead');
  const context = { local: local ?? false, testUrlRequired: testBehaviour === 'test_url', values, carriesBid: false };
  // Without a known mode, where the bid comes from is unknown: the mode's own mistake is reported.
  const bidInPing = pricedByBid && mode === 'ping_post';
  const bidInPost = pricedByBid && mode === 'direct_post';

  let ping: Integration['ping'];
  if (mode === 'ping_post') {
    ping = required(fields.ping, at('ping'), problems, (v) =>
      parseExchange(v, at('ping'), { ...context, call: 'ping', carriesBid: bidInPing }, problems),
    );
  } else if (!isAbsent(fields.ping)) {
    problems.at(at('ping'), 'is used only with mode ping_post');
  }
  if (mode !== 'ping_post' && !isAbsent(fields.pingTimeoutMs))
    problems.at(at('pingTimeoutMs'), 'is used only with mode ping_post');
  const post = required(fields.post, at('post'), problems, (v) =>
    parseExchange(
      v,
      at('post'),
      { ...context, call: mode === 'ping_post' ? 'postAfterPing' : 'post', carriesBid: bidInPost },
      problems,
    ),
  );
  const statusLookup = isAbsent(fields.statusLookup)
    ? undefined
    : parseExchange(
        fields.statusLookup,
        at('statusLookup'),
        { ...context, testUrlRequired: false, call: 'statusLookup' },
        problems,
      );
  if (
    problems.found.length > start ||
    onTimeout === undefined ||
    mode === undefined ||
    post === undefined ||
    timeoutMs === undefined ||
    local === undefined ||
    testBehaviour === undefined
  ) {
    return undefined;
  }
  return {
    mode,
    ping,
    post,
    timeoutMs,
    pingTimeoutMs,
    postTimeoutMs,
    local,
    testBehaviour,
    onTimeout,
    statusLookup,
    ...(settleAfterMs === undefined ? {} : { settleAfterMs }),
  };
}
