import { isIPv4, isIPv6 } from 'node:net';

/**
 * How many leading bits of an IPv6 address name one client. Providers hand a customer a /56 or a /64, and
 * a client that owns a prefix can use any address in it: limiting single addresses would limit nothing.
 */
export const IPV6_CLIENT_PREFIX_BITS = 56;

/** The eight 16-bit groups of an IPv6 address, which must be valid IPv6 text. */
function ipv6Groups(address: string): number[] {
  const text = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_match, a: string, b: string, c: string, d: string) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((group) => group.toString(16)).join(':'),
  );
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
  const [head = '', tail] = text.split('::');
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The name a client is limited by: an IPv4 address as it is (also when it arrives IPv4-mapped, as on a
 * dual-stack listener), an IPv6 address as its /56 prefix.
 */
export function clientAddressGroup(ip: string): string {
  const address = ip.replace(/%.*$/, ''); // a zone id names an interface of ours, not the client
  if (isIPv4(address)) return address;
  if (!isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  const kept = groups.map((group, index) => {
    const bitsBefore = index * 16;
    if (bitsBefore >= IPV6_CLIENT_PREFIX_BITS) return 0;
    const keep = Math.min(16, IPV6_CLIENT_PREFIX_BITS - bitsBefore);
    return group & (0xffff << (16 - keep)) & 0xffff;
  });
  return `${kept.map((group) => group.toString(16)).join(':')}/${IPV6_CLIENT_PREFIX_BITS}`;
}
