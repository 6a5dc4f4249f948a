import fc from 'fast-check';
import { validateWebhookRequest, InvalidWebhookError } from '../../../../src/domain/webhooks/webhook-endpoint';
import { webhookUrlProblem } from '../../../../src/domain/webhooks/webhook-url';

const NONE = new Set<string>();
/** A receiver on the operator's own network (OUTBOUND_PRIVATE_HOSTS). */
const OPERATOR = new Set(['hooks.internal', '10.0.0.5']);

/** The IPv4 address as a URL host in each form the URL parser reads as that address. */
function ipv4Forms(octets: readonly number[]): string[] {
  const [a, b, c, d] = octets;
  const value = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
  return [
    `${a}.${b}.${c}.${d}`,
    String(value),
    `0x${value.toString(16)}`,
    `0${value.toString(8)}`,
    `${a}.${(b << 16) + (c << 8) + d}`,
    `${a}.${b}.${(c << 8) + d}`,
    octets.map((octet) => `0x${octet.toString(16)}`).join('.'),
    octets.map((octet) => `0${octet.toString(8)}`).join('.'),
    `${a}.${b}.${c}.${d}.`,
  ];
}

function ipv6Forms(groups: readonly number[], v4: readonly number[]): string[] {
  const hex = groups.map((group) => group.toString(16));
  return [
    `[${hex.join(':')}]`,
    `[${hex.slice(0, 6).join(':')}:${v4.join('.')}]`,
    `[::ffff:${v4.join('.')}]`,
    `[::${v4.join('.')}]`,
    `[64:ff9b::${v4.join('.')}]`,
    '[::1]',
    '[::]',
    `[fe80::${hex[7]}]`,
  ];
}

const octet = fc.integer({ min: 0, max: 255 });
const octets = fc.tuple(octet, octet, octet, octet);
const group = fc.integer({ min: 0, max: 0xffff });
const path = fc.constantFrom('', '/', '/hook', '/a/b?x=1');
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/);

describe('webhook URLs at the boundary', () => {
  it('takes an https URL to a named host, with a port, a path and a query', () => {
    expect(webhookUrlProblem('https://hooks.example.com/bridle?token=abc', NONE)).toBeNull();
    expect(webhookUrlProblem('https://hooks.example.com:8443/', NONE)).toBeNull();
    expect(webhookUrlProblem('https://hooks.xn--bcher-kva.example/', NONE)).toBeNull();
  });

  it('refuses an IP address in every form the URL parser reads as one', () => {
    fc.assert(
      fc.property(octets, fc.array(group, { minLength: 8, maxLength: 8 }), path, (v4, v6, tail) => {
        for (const host of [...ipv4Forms(v4), ...ipv6Forms(v6, v4)]) {
          expect(webhookUrlProblem(`https://${host}${tail}`, NONE)).toMatch(/^url must (name a host, not an IP address|be an absolute)/);
        }
      }),
    );
  });

  it('refuses user info however it is written', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:-]{0,12}$/), label, (user, host) => {
        expect(webhookUrlProblem(`https://${user}@${host}.example.com/hook`, NONE)).toMatch(/user info|absolute/);
      }),
    );
    expect(webhookUrlProblem('https://:@hooks.example.com/', NONE)).toMatch(/user info/);
    expect(webhookUrlProblem('https://hooks.example.com@evil.example/', NONE)).toMatch(/user info/);
  });

  it('refuses any scheme but https, http too unless the operator allows the host', () => {
    fc.assert(
      fc.property(fc.constantFrom('http', 'ftp', 'file', 'ws', 'wss', 'gopher', 'javascript', 'data', 'HTTP'), label, (scheme, host) => {
        expect(webhookUrlProblem(`${scheme}://${host}.example.com/hook`, NONE)).toMatch(/^url must (use https|be an absolute)/);
      }),
    );
    expect(webhookUrlProblem('http://hooks.internal:8080/hook', OPERATOR)).toBeNull();
    expect(webhookUrlProblem('http://10.0.0.5/hook', OPERATOR)).toBeNull();
    expect(webhookUrlProblem('https://10.0.0.6/hook', OPERATOR)).toMatch(/not an IP address/);
  });

  it('refuses what is longer than 2 000 characters, before or after the parser writes it out', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2_001, max: 10_000 }), (length) => {
        const url = `https://hooks.example.com/${'a'.repeat(length - 'https://hooks.example.com/'.length)}`;
        expect(webhookUrlProblem(url, NONE)).toBe('url must be at most 2000 characters');
      }),
    );
    // 700 characters that the parser percent-encodes into 2 100.
    expect(webhookUrlProblem(`https://hooks.example.com/${'"'.repeat(700)}`, NONE)).toBe('url must be at most 2000 characters');
  });

  it('refuses spaces, control characters and backslashes, which the parser would drop or rewrite', () => {
    fc.assert(
      fc.property(fc.constantFrom(' ', '\t', '\n', '\r', '\u0000', '\u007f', '\u0085', '\\'), fc.nat(20), (bad, at) => {
        const url = 'https://hooks.example.com/hook';
        const cut = Math.min(at, url.length);
        expect(webhookUrlProblem(`${url.slice(0, cut)}${bad}${url.slice(cut)}`, NONE)).toMatch(/spaces, control characters or backslashes/);
      }),
    );
  });

  it('refuses localhost, a name without a dot, a trailing dot and a fragment', () => {
    expect(webhookUrlProblem('https://localhost/hook', NONE)).toMatch(/localhost/);
    expect(webhookUrlProblem('https://api.localhost/hook', NONE)).toMatch(/localhost/);
    expect(webhookUrlProblem('https://metadata/computeMetadata', NONE)).toMatch(/fully qualified/);
    expect(webhookUrlProblem('https://hooks.example.com./', NONE)).toMatch(/fully qualified/);
    expect(webhookUrlProblem('https://hooks.example.com/#x', NONE)).toMatch(/fragment/);
  });

  it('names the field at fault and stores the URL in its normal form', () => {
    const refusal = (() => {
      try {
        validateWebhookRequest({ url: 'https://127.0.0.1/' }, NONE);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(InvalidWebhookError);
    expect(refusal).toMatchObject({ field: 'url' });
    expect(validateWebhookRequest({ url: 'https://Hooks.Example.COM:443/a' }, NONE).url).toBe('https://hooks.example.com/a');
    expect(() => validateWebhookRequest({ events: [] }, NONE)).toThrow(/at least one event/);
    expect(() => validateWebhookRequest({ events: ['draft.nope'] }, NONE)).toThrow(/unknown events: draft.nope/);
    expect(() => validateWebhookRequest({ events: ['draft.expired', 'draft.expired'] }, NONE)).toThrow(/each event once/);
    expect(() => validateWebhookRequest({ description: 'a\u202eb' }, NONE)).toThrow(/description must be one line/);
  });
});
