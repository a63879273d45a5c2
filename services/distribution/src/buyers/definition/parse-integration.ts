import type { Integration } from './buyer-definition.js';
import { parseExchange } from './parse-exchange.js';
import { keyPath, type Problems } from './problems.js';
import { isAbsent, orDefault, readChoice, readFlag, readObject, readWholeNumber, required } from './read-values.js';

const KEYS = ['mode', 'ping', 'post', 'timeoutMs', 'local', 'testBehaviour'] as const;
const MODES = ['direct_post', 'ping_post'] as const;
const TEST_BEHAVIOURS = ['test_url', 'accept', 'reject'] as const;

const DEFAULT_TIMEOUT_MS = 3000;
const MAX_TIMEOUT_MS = 60_000;

/**
 * `mode` (ping_post when a ping is given, else direct_post), `ping`, `post`, `timeoutMs`, `local` (http://
 * allowed) and `testBehaviour` (what a test-mode lead gets: accept, reject, or a call to the testUrl).
 */
export function parseIntegration(value: unknown, path: string, problems: Problems): Integration | undefined {
  const fields = readObject(value, path, KEYS, problems);
  if (!fields) return undefined;
  const start = problems.found.length;
  const at = (key: string): string => keyPath(path, key);
  const mode = orDefault(fields.mode, isAbsent(fields.ping) ? 'direct_post' : 'ping_post', (v) => readChoice(v, at('mode'), MODES, problems));
  const timeoutMs = orDefault(fields.timeoutMs, DEFAULT_TIMEOUT_MS, (v) => readWholeNumber(v, at('timeoutMs'), problems, 1, MAX_TIMEOUT_MS));
  const local = orDefault(fields.local, false, (v) => readFlag(v, at('local'), problems));
  const testBehaviour = orDefault(fields.testBehaviour, 'accept', (v) => readChoice(v, at('testBehaviour'), TEST_BEHAVIOURS, problems));
  const context = { local: local ?? false, testUrlRequired: testBehaviour === 'test_url' };

  let ping: Integration['ping'];
  if (mode === 'ping_post') {
    ping = required(fields.ping, at('ping'), problems, (v) => parseExchange(v, at('ping'), { ...context, call: 'ping' }, problems));
  } else if (!isAbsent(fields.ping)) {
    problems.at(at('ping'), 'is used only with mode ping_post');
  }
  const post = required(fields.post, at('post'), problems, (v) =>
    parseExchange(v, at('post'), { ...context, call: mode === 'ping_post' ? 'postAfterPing' : 'post' }, problems),
  );
  if (
    problems.found.length > start ||
    mode === undefined ||
    post === undefined ||
    timeoutMs === undefined ||
    local === undefined ||
    testBehaviour === undefined
  ) {
    return undefined;
  }
  return { mode, ping, post, timeoutMs, local, testBehaviour };
}
