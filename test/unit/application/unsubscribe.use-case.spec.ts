import type { CampaignRepository } from '../../../src/application/outreach/ports/campaign-repository.port';
import { UnsubscribeLinks } from '../../../src/application/outreach/unsubscribe/unsubscribe-links';
import { UnsubscribeUseCase } from '../../../src/application/outreach/unsubscribe/unsubscribe.use-case';
import type { DoNotContactEntry, DoNotContactKind } from '../../../src/domain/outreach/do-not-contact';
import { UnsubscribeLinkInvalidError } from '../../../src/domain/outreach/unsubscribe';
import { HmacLinkSigner } from '../../../src/infrastructure/security/hmac-link-signer';
import { FixedClock } from '../../fakes/fixed-clock';
import { InMemoryUserRepository } from '../../fakes/in-memory-user.repository';
import { RecordingAuditLog } from '../../fakes/recording-audit-log';

const CAMPAIGN_ID = '0b6d9c2e-aaaa-4bbb-8ccc-1234567890ab';

/** The do-not-contact list of CampaignRepository, in memory: an entry per owner and value, kept on a second add. */
class InMemoryDoNotContact {
  readonly entries: (DoNotContactEntry & { ownerId: string })[] = [];

  addDoNotContact(ownerId: string, entry: { kind: DoNotContactKind; value: string }, now: Date): Promise<DoNotContactEntry> {
    const listed = this.entries.find((e) => e.ownerId === ownerId && e.value === entry.value);
    if (listed) return Promise.resolve(listed);
    const added = { id: `entry-${this.entries.length + 1}`, ownerId, ...entry, createdAt: now };
    this.entries.push(added);
    return Promise.resolve(added);
  }
}

async function setUp() {
  const users = new InMemoryUserRepository();
  const owner = await users.create({ email: 'owner@example.com', passwordHash: 'x', role: 'user' });
  const list = new InMemoryDoNotContact();
  const audit = new RecordingAuditLog([]);
  const clock = new FixedClock();
  const links = new UnsubscribeLinks(
    HmacLinkSigner.derive('a-secret-of-at-least-thirty-two-characters', 'unsubscribe'),
    'https://b.example',
  );
  const sut = new UnsubscribeUseCase(links, list as unknown as CampaignRepository, users, audit, clock);
  const token = links.token({ ownerId: owner.id, campaignId: CAMPAIGN_ID, email: 'jane@acme.example' });
  return { sut, users, owner, list, audit, clock, token };
}

describe(UnsubscribeUseCase.name, () => {
  it('reads a link without changing anything', async () => {
    const { sut, owner, list, audit, token } = await setUp();
    expect(sut.check(token)).toEqual({ ownerId: owner.id, campaignId: CAMPAIGN_ID, email: 'jane@acme.example' });
    expect(list.entries).toEqual([]);
    expect(audit.rows).toEqual([]);
  });

  it("puts the address on the owner's list at once, audited with the owner as actor; a second use adds nothing", async () => {
    const { sut, owner, list, audit, clock, token } = await setUp();

    await expect(sut.execute(token)).resolves.toEqual({ email: 'jane@acme.example', added: true });
    clock.advance(60_000);
    await expect(sut.execute(token)).resolves.toEqual({ email: 'jane@acme.example', added: false });

    expect(list.entries).toEqual([expect.objectContaining({ ownerId: owner.id, kind: 'email', value: 'jane@acme.example' })]);
    expect(audit.rows.map((row) => [row.entry, row.outcome])).toEqual(
      [true, false].map((added) => [
        {
          source: 'outreach',
          actorId: owner.id,
          campaignId: CAMPAIGN_ID,
          tool: 'unsubscribe',
          arguments: { email: 'jane@acme.example', via: 'unsubscribe link' },
          securityEvents: [],
        },
        { status: 'succeeded', result: { doNotContactEntryId: 'entry-1', added }, durationMs: 0 },
      ]),
    );
  });

  it('refuses a link it did not make, before reading or writing anything', async () => {
    const { sut, list, audit, token } = await setUp();
    for (const bad of [`${token}x`, token.slice(0, -1), 'x', '']) {
      expect(() => sut.check(bad)).toThrow(UnsubscribeLinkInvalidError);
      await expect(sut.execute(bad)).rejects.toThrow(UnsubscribeLinkInvalidError);
    }
    expect(list.entries).toEqual([]);
    expect(audit.rows).toEqual([]);
  });

  it('records nothing for an owner whose account is gone: no more email can come from it', async () => {
    const { sut, users, owner, list, audit, token } = await setUp();
    users.users.delete(owner.id);
    await expect(sut.execute(token)).resolves.toEqual({ email: 'jane@acme.example', added: false });
    expect(list.entries).toEqual([]);
    expect(audit.rows).toEqual([]);
  });
});
