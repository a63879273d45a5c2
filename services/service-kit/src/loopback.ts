import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6'); // IPv4-mapped addresses (::ffff:127.0.0.1) are checked against the IPv4 rule

/**
 * Whether a host keeps traffic on this machine: `localhost`, 127.0.0.0/8 or ::1. Any other name
 * may resolve elsewhere; 0.0.0.0 and :: are every interface.
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (name === 'localhost') return true;
  const family = isIP(name);
  return family !== 0 && LOOPBACK.check(name, family === 4 ? 'ipv4' : 'ipv6');
}

/** The host of `host:port`, `[v6]:port`, a bare IPv6 address or a bare host. */
function hostOf(hostPort: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(hostPort);
  if (bracketed) return bracketed[1];
  if (isIP(hostPort) === 6) return hostPort;
  return hostPort.replace(/:\d*$/, '');
}

/**
 * Whether a grpc-js target (`host:port`, `dns:///host:port`, `ipv4:a:p,b:p`, `ipv6:[a]:p`,
 * `unix:path`) reaches only this machine.
 */
export function isLoopbackTarget(target: string): boolean {
  if (/^unix(-abstract)?:/.test(target)) return true;
  const addressList = /^ipv[46]:(.*)$/.exec(target);
  if (addressList) return addressList[1].split(',').every((entry) => isLoopbackHost(hostOf(entry)));
  return isLoopbackHost(hostOf(target.replace(/^dns:(?:\/\/[^/]*\/)?/, '')));
}
