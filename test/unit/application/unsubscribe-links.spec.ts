import fc from 'fast-check';
import { UnsubscribeLinks } from '../../../src/application/outreach/unsubscribe/unsubscribe-links';
import {
  readUnsubscribePayload,
  unsubscribePayload,
  type UnsubscribeSubject,
  withUnsubscribeFooter,
} from '../../../src/domain/outreach/unsubscribe';
import { JwtAccessTokenService } from '../../../src/infrastructure/security/jwt-access-token.service';
import { HmacLinkSigner } from '../../../src/infrastructure/security/hmac-link-signer';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const BASE = 'https://bridle.example';
const SUBJECT: UnsubscribeSubject = {
  ownerId: '3f7c1a52-1111-4222-8333-944455556666',
  campaignId: '0b6d9c2e-aaaa-4bbb-8ccc-1234567890ab',
  email: 'jane.doe+q1@acme.example',
};

function links(secret = SECRET, purpose = 'unsubscribe'): UnsubscribeLinks {
  return new UnsubscribeLinks(HmacLinkSigner.derive(secret, purpose), BASE);
}

/** A token with one character of its payload or its signature changed. */
function altered(token: string, index: number): string {
  const replacement = token[index] === 'A' ? 'B' : 'A';
  return `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
}

describe(UnsubscribeLinks.name, () => {
  const sut = links();

  it('round-trips: the link names its subject, and the same subject always gets the same link', () => {
    const url = sut.url(SUBJECT);
    expect(url).toMatch(/^https:\/\/bridle\.example\/unsubscribe\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(sut.url(SUBJECT)).toBe(url);
    const token = url.slice(`${BASE}/unsubscribe/`.length);
    expect(sut.read(token)).toEqual(SUBJECT);
    // Another link for another address, campaign or owner.
    expect(sut.token({ ...SUBJECT, email: 'john@acme.example' })).not.toBe(token);
    expect(sut.token({ ...SUBJECT, campaignId: '0b6d9c2e-aaaa-4bbb-8ccc-1234567890ac' })).not.toBe(token);
    expect(sut.token({ ...SUBJECT, ownerId: '3f7c1a52-1111-4222-8333-944455556667' })).not.toBe(token);
  });

  it('signs the canonical address, however the email spelled it', () => {
    expect(sut.read(sut.token({ ...SUBJECT, email: ' Jane.Doe+Q1@ACME.example ' }))).toEqual(SUBJECT);
  });

  it('refuses any token with a character changed, cut short, lengthened or reassembled', () => {
    const token = sut.token(SUBJECT);
    for (let i = 0; i < token.length; i++) {
      if (token[i] !== '.') expect({ i, read: sut.read(altered(token, i)) }).toEqual({ i, read: null });
    }
    for (let length = 0; length < token.length; length++) {
      expect({ length, read: sut.read(token.slice(0, length)) }).toEqual({ length, read: null });
    }
    const [payload, mac] = token.split('.');
    const other = sut.token({ ...SUBJECT, email: 'john@acme.example' });
    for (const forged of [
      `${token}A`,
      `${token}.`,
      `${payload}.${mac}.${mac}`,
      `${payload}=.${mac}`,
      `${payload}.${mac}=`,
      `${payload}`,
      `.${mac}`,
      `${other.split('.')[0]}.${mac}`,
      `${payload}.${other.split('.')[1]}`,
      `${payload}.${Buffer.alloc(32).toString('base64url')}`,
      token.replace('.', '+'),
    ]) {
      expect({ forged, read: sut.read(forged) }).toEqual({ forged, read: null });
    }
  });

  it('refuses whatever an attacker makes up', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.base64String(), (text, base64) => {
        expect(sut.read(text)).toBeNull();
        expect(sut.read(`${Buffer.from(unsubscribePayload(SUBJECT)).toString('base64url')}.${base64}`)).toBeNull();
      }),
    );
  });

  it('refuses a token made with another key: another secret, or the same secret for another purpose', () => {
    const token = sut.token(SUBJECT);
    expect(links('another-secret-of-at-least-thirty-two-chars').read(token)).toBeNull();
    expect(links(SECRET, 'verify-email').read(token)).toBeNull();
    expect(sut.read(links(SECRET, 'verify-email').token(SUBJECT))).toBeNull();
  });

  it('refuses a payload signed with the right key that names another purpose or is not canonical; reads an address to its key', () => {
    const signer = HmacLinkSigner.derive(SECRET, 'unsubscribe');
    const canonical = unsubscribePayload(SUBJECT);
    expect(canonical).toBe(`unsubscribe\n${SUBJECT.ownerId}\n${SUBJECT.campaignId}\n${SUBJECT.email}`);
    for (const payload of [
      canonical.replace('unsubscribe', 'verify-email'),
      canonical.replace('unsubscribe', 'Unsubscribe'),
      canonical.replace(SUBJECT.email, 'not an address'),
      canonical.replace(SUBJECT.ownerId, SUBJECT.ownerId.toUpperCase()),
      canonical.replace(SUBJECT.ownerId, 'owner-1'),
      `${canonical}\n`,
      `${canonical}\nextra`,
      canonical.replace(`\n${SUBJECT.email}`, ''),
      JSON.stringify(SUBJECT),
    ]) {
      expect({ payload, read: sut.read(signer.sign(payload)) }).toEqual({ payload, read: null });
      expect(readUnsubscribePayload(payload)).toBeNull();
    }
    expect(sut.read(signer.sign(canonical))).toEqual(SUBJECT);
    // A link sent before addresses were keyed as now (another case, a domain in Unicode) unsubscribes the same key.
    for (const spelling of [SUBJECT.email.toUpperCase(), SUBJECT.email.replace(/\.(?=[^.@]*$)/, '\u3002')]) {
      expect(sut.read(signer.sign(canonical.replace(SUBJECT.email, spelling)))).toEqual(SUBJECT);
    }
  });

  it('refuses an access token signed with the same secret, and its key signs no access token', async () => {
    const jwt = new JwtAccessTokenService(SECRET, 3600);
    const { accessToken } = await jwt.issue({ userId: SUBJECT.ownerId, email: 'owner@example.com', role: 'user', credentialsVersion: 0 });
    expect(sut.read(accessToken)).toBeNull();
    await expect(jwt.verify(sut.token(SUBJECT))).resolves.toBeNull();
  });

  it('refuses an overlong token unread', () => {
    expect(sut.read(`${'A'.repeat(2000)}.${'A'.repeat(43)}`)).toBeNull();
  });
});

describe(withUnsubscribeFooter.name, () => {
  it('ends the body with a signature separator and the link on a line of its own', () => {
    const url = links().url(SUBJECT);
    expect(withUnsubscribeFooter('Hi Jane,\n\nShall we talk?\n\n', url)).toBe(
      `Hi Jane,\n\nShall we talk?\n\n-- \nTo get no more emails from this sender, unsubscribe here:\n${url}\n`,
    );
  });
});
