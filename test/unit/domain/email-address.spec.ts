import { canonicalDomain, canonicalDomainGlob, emailAddress } from '../../../src/domain/shared/email-address';

describe('the canonical form of a domain and an address', () => {
  it.each([
    ['bücher.de', 'xn--bcher-kva.de'],
    ['BÜCHER.DE.', 'xn--bcher-kva.de'],
    ['XN--BCHER-KVA.de', 'xn--bcher-kva.de'],
    ['mail.competitor\u3002com', 'mail.competitor.com'],
    ['mail.competitor\uFF61com', 'mail.competitor.com'],
    ['mail\uFF0Ecompetitor.com\u3002', 'mail.competitor.com'],
    ['ｍüｎｃｈｅｎ.example', 'xn--mnchen-3ya.example'],
    ['faß.de', 'xn--fa-hia.de'],
  ])('reads %j as %j', (raw, canonical) => {
    expect(canonicalDomain(raw)).toBe(canonical);
  });

  it.each([
    ['an invalid A-label', 'xn--zz.com'],
    ['an A-label of ASCII only', 'xn--ab-.com'],
    ['a label IDNA disallows', 'a\u2024com'],
    ['a zero-width space UTS #46 would drop', 'ex\u200Bample.com'],
    ['a soft hyphen', 'bü\u00ADcher.de'],
    ['a percent escape the URL parser decodes', 'a%41.com'],
    ['a backslash the URL parser ends the host at', 'a\\b.com'],
    ['an underscore', 'a_b.com'],
    ['a leading hyphen', '-a.com'],
    ['an empty label', 'a..com'],
    ['an IPv4 address', '127.0.0.1'],
    ['a number the URL parser reads as IPv4', '0x7f.1'],
    ['a label of 64 characters', `${'a'.repeat(64)}.com`],
  ])('refuses %s (%j)', (_, raw) => {
    expect(canonicalDomain(raw)).toBeNull();
    expect(emailAddress(`jane@${raw}`)).toBeNull();
  });

  it('keeps the local part as written (NFKC) for delivery and lower-cases it for comparison', () => {
    expect(emailAddress(' Jane.Doe@Bücher.DE ')).toEqual({
      address: 'Jane.Doe@xn--bcher-kva.de',
      key: 'jane.doe@xn--bcher-kva.de',
      domain: 'xn--bcher-kva.de',
    });
    expect(emailAddress('ｊａｎｅ＠bücher.de')?.address).toBe('jane@xn--bcher-kva.de');
    for (const bad of ['jane@localhost', '@bücher.de', 'a(b)@x.com', 'a"b@x.com', 'a:b@x.com', `${'a'.repeat(65)}@x.com`, 'a b@x.com']) {
      expect({ bad, read: emailAddress(bad) }).toEqual({ bad, read: null });
    }
  });

  it('reads a glob label by label: wildcard labels ASCII as written, the others canonical', () => {
    expect(canonicalDomainGlob('*.bücher.de')).toBe('*.xn--bcher-kva.de');
    expect(canonicalDomainGlob('*.XN--BCHER-KVA.DE.')).toBe('*.xn--bcher-kva.de');
    expect(canonicalDomainGlob('mail-?\u3002competitor\uFF61com')).toBe('mail-?.competitor.com');
    expect(canonicalDomainGlob('*.4.example')).toBe('*.4.example');
    expect(canonicalDomainGlob('bü*.de')).toBeNull();
    expect(canonicalDomainGlob('*.xn--zz.com')).toBeNull();
  });
});
