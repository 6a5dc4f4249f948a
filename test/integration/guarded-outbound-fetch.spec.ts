import { OutboundFetchError } from '../../src/application/shared/ports/outbound-fetch.port';
import { GuardedOutboundFetch } from '../../src/infrastructure/security/guarded-outbound-fetch';
import { type HttpsFixture, startHttpsFixture } from '../support/https-fixture';

const REQUEST = { maxBytes: 5 * 1024, timeoutMs: 2_000 };

async function failure(fetching: Promise<unknown>): Promise<string> {
  try {
    await fetching;
  } catch (error) {
    if (error instanceof OutboundFetchError) return `${error.reason}: ${error.message}`;
    throw error;
  }
  throw new Error('not refused');
}

/** The SSRF guard with its defaults (the system's resolver, no host allowed to a private address), and against a local HTTPS fixture. */
describe('GuardedOutboundFetch', () => {
  let fixture: HttpsFixture;
  beforeAll(async () => {
    fixture = await startHttpsFixture(['doc.example']);
    fixture.serve('doc.example', '/c.json', { body: '{"ok":true}' });
  });
  afterAll(() => fixture.close());

  it('refuses loopback by default, by name, as a literal and as IPv4-mapped IPv6, before connecting', async () => {
    const sut = new GuardedOutboundFetch();
    expect(await failure(sut.get(`https://localhost:${fixture.port}/c.json`, REQUEST))).toMatch(
      /^address: localhost resolves to a special-use address \(loopback\)/,
    );
    expect(await failure(sut.get(`https://127.0.0.1:${fixture.port}/c.json`, REQUEST))).toMatch(/^address: .*\(loopback\)/);
    expect(await failure(sut.get(`https://[::ffff:127.0.0.1]:${fixture.port}/c.json`, REQUEST))).toMatch(/^address: .*\(loopback\)/);
    expect(await failure(sut.get(`https://169.254.169.254/latest/meta-data`, REQUEST))).toMatch(/^address: .*\(linkLocal\)/);
    expect(fixture.total()).toBe(0);
  });

  it('refuses a name with any special-use address among its answers', async () => {
    const sut = new GuardedOutboundFetch({ resolve: () => Promise.resolve(['93.184.215.14', '10.0.0.7']) });
    expect(await failure(sut.get('https://mixed.example/c.json', REQUEST))).toMatch(/^address: .*\(private\)/);
  });

  it('resolves once and connects to the address it checked, whatever the name would resolve to later', async () => {
    // A rebinding resolver: the first answer is the checked one; any later answer would be elsewhere.
    const answers = [['127.0.0.1'], ['10.0.0.1']];
    let calls = 0;
    const sut = new GuardedOutboundFetch({
      resolve: () => Promise.resolve(answers[Math.min(calls++, 1)]),
      privateHosts: new Set(['doc.example']),
      ca: fixture.ca,
    });
    const response = await sut.get(fixture.url('doc.example', '/c.json'), REQUEST);
    expect({ status: response.status, body: response.body.toString() }).toEqual({ status: 200, body: '{"ok":true}' });
    expect(calls).toBe(1);
    expect(fixture.count('doc.example', '/c.json')).toBe(1);
  });

  it('checks the certificate against the name: an untrusted certificate is a network failure', async () => {
    const sut = new GuardedOutboundFetch({ resolve: () => Promise.resolve(['127.0.0.1']), privateHosts: new Set(['doc.example']) });
    expect(await failure(sut.get(fixture.url('doc.example', '/c.json'), REQUEST))).toMatch(/^network: /);
  });
});
