import { specialUseRange } from '../../../src/infrastructure/security/special-use-addresses';

/** What an outbound fetch may connect to: ordinary public unicast addresses, and nothing else in any spelling. */
describe('specialUseRange', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['169.254.169.254', 'linkLocal'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
  ])('refuses IPv4 %s (%s)', (address, range) => {
    expect(specialUseRange(address)).toBe(range);
  });

  it.each([
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['2001:db8::1', 'reserved'],
    ['100::1', 'discard'],
  ])('refuses IPv6 %s (%s)', (address, range) => {
    expect(specialUseRange(address)).toBe(range);
  });

  it.each([
    // IPv4-mapped: judged as the IPv4 address inside, in either spelling.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:100.64.1.1', 'carrierGradeNat'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['0:0:0:0:0:ffff:c0a8:0101', 'private'],
    // A public address mapped is still refused: a v4-mapped destination is never needed.
    ['::ffff:8.8.8.8', 'ipv4Mapped'],
    // Forms that carry an IPv4 address to a gateway: refused whatever they carry.
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['64:ff9b::808:808', 'rfc6052'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    // IPv4-compatible (deprecated): outside global unicast.
    ['::127.0.0.1', 'loopback'], // ipaddr.js reads the dotted form as IPv4-mapped
    ['::7f00:1', 'notGlobalUnicast'],
  ])('refuses IPv4 inside IPv6 %s (%s)', (address, range) => {
    expect(specialUseRange(address)).toBe(range);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.1',
    '172.32.0.1',
    '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
    '2a00:1450:4001:80b::200e',
  ])('allows the public unicast address %s', (address) => {
    expect(specialUseRange(address)).toBeNull();
  });

  it('refuses what is not an address at all', () => {
    expect(specialUseRange('client.example')).toBe('not an IP address');
    expect(specialUseRange('')).toBe('not an IP address');
  });
});
