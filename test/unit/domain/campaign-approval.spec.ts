import { draftCampaign, InvalidCampaignError, renameOrRelimit } from '../../../src/domain/outreach/campaign';

describe("a campaign's approval mode", () => {
  it('is refused by the campaign as a 400 naming the field', () => {
    expect(() => draftCampaign({ name: 'x', approvalMode: 'sometimes' })).toThrow(InvalidCampaignError);
    expect(() => draftCampaign({ name: 'x', approvalFirstN: 0 })).toThrow(expect.objectContaining({ field: 'approvalFirstN' }));
    expect(draftCampaign({ name: 'x', approvalMode: 'first_n', approvalFirstN: 2 }).approval).toEqual({ mode: 'first_n', firstN: 2 });
  });

  it('changes on its own, keeping N', () => {
    const campaign = { ...draftCampaign({ name: 'x', approvalFirstN: 5 }), id: 'c', ownerId: 'o', status: 'draft' as const };
    const changed = renameOrRelimit(
      { ...campaign, createdAt: new Date(), updatedAt: new Date(), completedAt: null },
      { approvalMode: 'all' },
    );
    expect(changed.approval).toEqual({ mode: 'all', firstN: 5 });
  });
});
