import { BlockList, isIP } from 'node:net';

/**
 * Addresses a buyer that is not marked local may not be reached at: private, loopback, link-local,
 * shared, benchmarking, documentation, multicast and reserved (the IANA special-purpose registries).
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible addresses (::a.b.c.d).
  ['::', 96],
  // NAT64 for local use (RFC 8215).
  ['64:ff9b:1::', 48],
  // Discard-only (RFC 6666).
  ['100::', 64],
  // IETF protocol assignments: Teredo (which tunnels to an obfuscated IPv4), benchmarking, ORCHID.
  ['2001::', 23],
  // Documentation (RFC 3849, RFC 9637).
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/**
 * False for private, loopback, link-local, documentation, multicast and reserved addresses, and for IPv6
 * addresses that carry one of those as IPv4 (mapped, NAT64 64:ff9b::/96, 6to4 2002::/16).
 */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 4) return !NON_PUBLIC.check(address, 'ipv4');
  if (NON_PUBLIC.check(address, 'ipv6')) return false;
  const embedded = embeddedIpv4(address);
  return embedded === undefined || !NON_PUBLIC.check(embedded, 'ipv4');
}

/** The IPv4 address that a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address reaches. */
function embeddedIpv4(address: string): string | undefined {
  const words = ipv6Words(address);
  const isNat64 = words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((word) => word === 0);
  if (isNat64) return ipv4Of(words[6], words[7]);
  if (words[0] === 0x2002) return ipv4Of(words[1], words[2]);
  return undefined;
}

/** The eight 16-bit words of a valid IPv6 address (a trailing dotted IPv4 included). */
function ipv6Words(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = dotted
    ? `${address.slice(0, dotted.index)}${((Number(dotted[1]) << 8) | Number(dotted[2])).toString(16)}:${((Number(dotted[3]) << 8) | Number(dotted[4])).toString(16)}`
    : address;
  const [head, tail] = hex.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((word) => parseInt(word, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** `localhost` and the names under it, which always mean this host (RFC 6761), whatever DNS says. */
export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
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
