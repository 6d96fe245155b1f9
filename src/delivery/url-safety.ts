import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';

/**
 * SSRF protection for webhook targets: a partner must not make the pharmacy's servers call its own
 * internal network. Checked at registration and again at every delivery, on the very addresses the
 * connection then uses (a name can re-resolve: DNS rebinding).
 */

/** What the current deployment allows. */
export interface UrlPolicy {
  /** Only https (production) or also http (development). */
  allowHttp: boolean;
  /** Loopback, private and other internal targets allowed (a local development server, or the operator's override). */
  allowPrivate: boolean;
}

export const MAX_URL_LENGTH = 2048;

/** The error code of a connection the guard refused (see `guardedLookup`). */
export const REFUSED_CODE = 'EWEBHOOKTARGET';

export type ResolveAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolveAll: ResolveAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** Ranges that are not the public internet (IANA special-purpose registries). */
const internal = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  internal.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible addresses
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (ULA)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  internal.addSubnet(prefix, bits, 'ipv6');
}

/**
 * True for loopback, private, link-local, CGNAT, multicast, unspecified, reserved and documentation
 * addresses, IPv6 ULA, and IPv6 forms that embed such an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`). Anything that is not an IP address counts as internal.
 */
export function isInternalAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = net.isIP(ip);
  if (family === 4) return internal.check(ip, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(ip);
  if (embedded !== null) return internal.check(embedded, 'ipv4');
  return internal.check(ip, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped, NAT64 or 6to4 IPv6 address, or null. */
function embeddedIpv4(ipv6: string): string | null {
  const groups = expandIpv6(ipv6);
  if (groups === null) return null;
  const toV4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  /* eslint-disable @typescript-eslint/no-non-null-assertion -- expandIpv6 returns exactly 8 groups */
  if (zeros(0, 5) && groups[5] === 0xffff) return toV4(groups[6]!, groups[7]!); // ::ffff:a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return toV4(groups[6]!, groups[7]!); // NAT64
  if (groups[0] === 0x2002) return toV4(groups[1]!, groups[2]!); // 6to4
  /* eslint-enable @typescript-eslint/no-non-null-assertion */
  return null;
}

/** `::ffff:127.0.0.1` → eight 16-bit groups. */
function expandIpv6(ip: string): number[] | null {
  let text = ip.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a, b, c, d] = dotted[1].split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  const groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  return groups.some((g) => Number.isNaN(g)) ? null : groups;
}

/** Names that always mean this machine (RFC 6761) or a private network. */
function isLocalName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name.endsWith('.local') || name.endsWith('.internal');
}

/**
 * Checks a webhook URL's form: absolute, http(s) as the policy allows, no credentials, a host, not
 * too long. Returns the normalized URL (no fragment) or the problem, worded for `webhook_url`.
 */
export function checkUrlForm(raw: string, policy: UrlPolicy): { url: URL } | { problem: string } {
  if (raw.length > MAX_URL_LENGTH) return { problem: `must be at most ${MAX_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { problem: 'must be an absolute URL' };
  }
  const allowed = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) {
    return {
      problem: policy.allowHttp
        ? 'must start with https:// or http://'
        : 'must start with https:// (TLS is required in production)',
    };
  }
  if (url.hostname === '') return { problem: 'must name a host' };
  if (url.username !== '' || url.password !== '') return { problem: 'must not contain credentials' };
  url.hash = '';
  return { url };
}

/**
 * Refuses a host that is, or resolves to, an internal address (unless the policy allows them).
 * Returns the problem, or null when every address the name resolves to is public.
 */
export async function checkHostIsPublic(
  hostname: string,
  policy: UrlPolicy,
  resolve: ResolveAll = systemResolveAll,
): Promise<string | null> {
  if (policy.allowPrivate) return null;
  const host = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) !== 0) return isInternalAddress(host) ? `must not point to a private or internal address (${host})` : null;
  if (isLocalName(host)) return `must not point to a local host name (${host})`;
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch {
    return `host ${host} could not be resolved`;
  }
  if (addresses.length === 0) return `host ${host} could not be resolved`;
  const bad = addresses.find((a) => isInternalAddress(a.address));
  return bad ? `must not resolve to a private or internal address (${host} resolves to ${bad.address})` : null;
}

/**
 * A `lookup` for the connection (undici's `connect.lookup`): resolves the name, refuses it when any
 * address is internal, and hands the connection exactly the addresses it checked, so that a second
 * resolution cannot swap in another address between the check and the connect.
 */
export function guardedLookup(policy: UrlPolicy, resolve: ResolveAll = systemResolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        if (addresses.length === 0)
          throw Object.assign(new Error(`host ${hostname} could not be resolved`), { code: 'ENOTFOUND' });
        if (!policy.allowPrivate) {
          const problem = isLocalName(hostname) ? 'is a local host name' : null;
          const bad = addresses.find((a) => isInternalAddress(a.address));
          if (problem || bad) {
            throw Object.assign(
              new Error(
                `refused: ${hostname} ${problem ?? `resolves to the internal address ${bad?.address ?? ''}`} (SSRF protection)`,
              ),
              { code: REFUSED_CODE },
            );
          }
        }
        const wanted =
          options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
        const usable = wanted.length > 0 ? wanted : addresses;
        if (options.all)
          callback(
            null,
            usable.map((a) => ({ address: a.address, family: a.family })),
          );
        // eslint-disable-next-line @typescript-eslint/no-non-null-assertion -- addresses is not empty, so neither is usable
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((error: unknown) => callback(error as NodeJS.ErrnoException, options.all ? [] : '', undefined));
  };
}

/** Loopback: 127.0.0.0/8 and ::1 (and IPv4-mapped forms of 127/8). */
const loopback = new net.BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/**
 * True when a server bound to `host` (HOST) is reachable from this machine only: a loopback address
 * (127.0.0.0/8, ::1, also written [::1] or ::ffff:127.x.y.z) or the name `localhost`. A wildcard
 * (0.0.0.0, ::), a LAN address or any other name is not.
 */
export function listensOnlyOnLoopback(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (name === 'localhost') return true;
  const family = net.isIP(name);
  if (family === 4) return loopback.check(name, 'ipv4');
  if (family !== 6) return false;
  const embedded = embeddedIpv4(name);
  return embedded !== null ? loopback.check(embedded, 'ipv4') : loopback.check(name, 'ipv6');
}

/**
 * The deployment's policy. http:// targets: development only. Internal targets (loopback, private,
 * link-local...): refused in every environment, except on a development server that listens only on
 * loopback (a laptop, where a receiver on 127.0.0.1 is the point and no partner can reach the API)
 * or when the operator sets WEBHOOK_ALLOW_PRIVATE_TARGETS=true. A production server bound to loopback
 * is still refused: it is then behind a local reverse proxy, reachable by partners, and a partner
 * must not make it call the machine's own services.
 */
export function urlPolicyOf(config: {
  env: 'development' | 'production';
  host: string;
  webhookAllowPrivateTargets: boolean;
}): UrlPolicy {
  const development = config.env === 'development';
  const localDevelopment = development && listensOnlyOnLoopback(config.host);
  return { allowHttp: development, allowPrivate: localDevelopment || config.webhookAllowPrivateTargets };
}
