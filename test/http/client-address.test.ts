import { describe, expect, it } from 'vitest';
import { addressBucketOf } from '../../src/http/client-address.js';

describe('the per-address bucket of a client address', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:aa:bb::1', '2001:db8:aa:bb::/64'],
    ['2001:0db8:00aa:00bb:1:2:3:4', '2001:db8:aa:bb::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['2001:db8:1:2:3:4:192.0.2.1', '2001:db8:1:2::/64'],
  ])('when the address is %s, then the bucket is %s', (address, bucket) => {
    expect(addressBucketOf(address)).toBe(bucket);
  });
});
