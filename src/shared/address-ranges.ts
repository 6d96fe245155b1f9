import { BlockList, isIP } from 'node:net';

/**
 * Lists of IP addresses and CIDR ranges written for people (`10.0.0.0/8,127.0.0.1,fd00::/8`), as
 * TRUST_PROXY takes them, and the matcher they compile to. Pure.
 */

export interface AddressRange {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/**
 * Parses a comma-separated list of addresses and CIDR ranges (empty entries are skipped). Returns
 * the problem as a phrase (`has an invalid entry "…"`) when an entry is neither. A `/0` range is
 * refused: it would match every address, which is what a list is there to avoid.
 */
export function parseAddressRanges(text: string): AddressRange[] | string {
  const ranges: AddressRange[] = [];
  for (const entry of text.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const slash = entry.indexOf('/');
    const address = slash === -1 ? entry : entry.slice(0, slash);
    const version = isIP(address);
    if (version === 0) {
      return `has an invalid entry "${entry}": use IP addresses or CIDR ranges such as 10.0.0.0/8, 127.0.0.1, fd00::/8`;
    }
    const max = version === 4 ? 32 : 128;
    const prefixText = slash === -1 ? String(max) : entry.slice(slash + 1);
    const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (!(prefix >= 1 && prefix <= max)) {
      return `has an invalid range "${entry}": the prefix length must be between 1 and ${max}`;
    }
    ranges.push({ address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' });
  }
  return ranges;
}

/**
 * A function telling whether an address (as a socket reports it, or as a header names it) is in
 * one of the ranges. IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`, what a dual-stack socket
 * reports) match the IPv4 ranges. Anything that is not an address matches nothing.
 */
export function addressMatcher(ranges: readonly AddressRange[]): (address: string | undefined) => boolean {
  if (ranges.length === 0) return () => false;
  const list = new BlockList();
  for (const range of ranges) list.addSubnet(range.address, range.prefix, range.family);
  return (address) => {
    if (address === undefined) return false;
    const version = isIP(address);
    if (version === 0) return false;
    return list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
}
