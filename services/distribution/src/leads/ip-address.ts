/**
 * One spelling of a valid IP address: IPv6 in lower case with leading zeros dropped and the longest run
 * of zero groups compressed, as RFC 5952 writes it ("2001:DB8:0:0::01" is "2001:db8::1"); IPv4 as it is,
 * since validation takes dotted decimal without leading zeros only.
 */
export function canonicalIpAddress(address: string): string {
  // The WHATWG URL parser writes an IPv6 host in that form (an embedded IPv4 part as two hex groups).
  return address.includes(':') ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address;
}
