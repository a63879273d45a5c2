import { BlockList, isIP } from 'node:net';

/** Addresses a buyer that is not marked local may not be reached at: private, loopback, link-local... */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** False for private, loopback, link-local, multicast and reserved addresses, IPv4-mapped ones included. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type DestinationRefusal = 'invalid_url' | 'not_allowed';

/**
 * Whether a request may go to this URL: an absolute http(s) URL without credentials; for a buyer not
 * marked local, https only and not an IP literal outside the public Internet. (Names are checked on
 * the address they resolve to, when the connection is made: see the transport.)
 */
export function checkDestination(url: string, local: boolean): { url: URL } | { refused: DestinationRefusal } {
  if (!URL.canParse(url)) return { refused: 'invalid_url' };
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { refused: 'invalid_url' };
  if (parsed.username !== '' || parsed.password !== '') return { refused: 'not_allowed' };
  if (local) return { url: parsed };
  if (parsed.protocol !== 'https:') return { refused: 'not_allowed' };
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) !== 0 && !isPublicAddress(host)) return { refused: 'not_allowed' };
  return { url: parsed };
}
