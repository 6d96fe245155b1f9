import net from 'node:net';

/**
 * The client's address as every consumer should see it (rate limits, the audit trail, the logs):
 * `request.ip`, which behind a trusted proxy is the nearest untrusted hop of X-Forwarded-For, when it
 * is an IP address; otherwise (a proxy passed on whatever the client wrote) the peer's own address.
 */
export function clientAddress(request: { ip: string; socket: { remoteAddress?: string | undefined } }): string {
  if (net.isIP(request.ip) !== 0) return request.ip;
  return request.socket.remoteAddress ?? 'unknown';
}

/**
 * What one client controls, for the per-address limit: an IPv4 address (IPv4-mapped IPv6 included),
 * or an IPv6 /64, since a single host is usually handed a whole /64 and could rotate within it.
 */
export function addressBucketOf(address: string): string {
  const plain = (address.split('%')[0] ?? '').toLowerCase();
  if (net.isIPv4(plain)) return plain;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped?.[1]) return mapped[1];
  if (!net.isIPv6(plain)) return plain;
  const [head = '', tail] = plain.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const full = tail === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  return `${full
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
