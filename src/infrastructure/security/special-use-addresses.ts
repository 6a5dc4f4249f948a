import ipaddr from 'ipaddr.js';

const GLOBAL_UNICAST = ipaddr.IPv6.parse('2000::');

/**
 * Why an address is not one an outbound fetch may connect to, or null when it is an ordinary
 * public unicast address. The ranges are ipaddr.js's (the IANA special-purpose registries):
 * IPv4 unspecified (0/8), broadcast, multicast, link-local, loopback, CGNAT (100.64/10),
 * RFC 1918 private, and the reserved, documentation and benchmarking ranges; IPv6
 * unspecified, loopback, link-local, unique local, multicast, site-local, discard,
 * documentation, and every form that carries an IPv4 address inside (IPv4-mapped `::ffff:`,
 * translated, NAT64 `64:ff9b::`, 6to4, Teredo, the old IPv4-compatible `::a.b.c.d`): those are
 * refused whatever they carry, since where they lead depends on a gateway, not on the address.
 * Only global unicast IPv6 (2000::/3) is allowed at all. An IPv4-mapped address is judged as
 * the IPv4 address it maps, so that its range is the one named in the refusal.
 */
export function specialUseRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') {
    const range = parsed.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) {
    const range = v6.toIPv4Address().range();
    return range === 'unicast' ? 'ipv4Mapped' : range;
  }
  const range = v6.range();
  if (range !== 'unicast') return range;
  // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291) and anything else outside global unicast.
  return v6.match(GLOBAL_UNICAST, 3) ? null : 'notGlobalUnicast';
}
