import { OutreachActionPlanner } from '../../../src/application/outreach/outreach-action-planner';
import { planOnce } from '../../fakes/outreach/cycle-harness';
import { WRAP_UP } from '../../fakes/outreach/proposals';
import { say, ScriptedLanguageModel } from '../../fakes/scripted-language-model';

/** A model whose answers are these JSON values, one per call. */
function answering(...answers: unknown[]): ScriptedLanguageModel {
  const model = new ScriptedLanguageModel();
  model.use((_, call) => ({ ...say(''), text: JSON.stringify(answers[call - 1]) }));
  return model;
}

const plan = planOnce;

const REASON = 'Every task of the campaign is finished.';

describe(OutreachActionPlanner.name, () => {
  it('refuses arguments that break a format of the action contract, tells the model which, and audits it', async () => {
    const model = answering(
      { action: 'complete_campaign', args: { campaignId: 'q4-founders' }, reason: REASON },
      { action: 'complete_campaign', args: { campaignId: WRAP_UP.campaign.id }, reason: REASON },
    );

    const { result, audit } = await plan(model, WRAP_UP);

    expect(result).toMatchObject({
      ok: true,
      proposal: { action: 'complete_campaign', args: { campaignId: WRAP_UP.campaign.id } },
      validation: { accepted: true, attempts: 2, problems: ['args.campaignId must be a UUID'] },
    });
    expect(model.requests[1].messages.at(-1)?.content).toContain('That answer was not accepted: args.campaignId must be a UUID.');
    expect(audit.rows.map((row) => [row.entry.tool, row.outcome?.status, row.outcome?.errorCode, row.outcome?.result])).toEqual([
      ['complete_campaign', 'rejected', 'INVALID_PROPOSAL', { problems: ['args.campaignId must be a UUID'] }],
    ]);
  });

  it('names every broken rule of the arguments, each under args, in one answer to the model', async () => {
    const model = answering(
      { action: 'complete_campaign', args: { campaign: WRAP_UP.campaign.id }, reason: REASON },
      { action: 'complete_campaign', args: { campaign: WRAP_UP.campaign.id }, reason: REASON },
    );

    const { result } = await plan(model, WRAP_UP);

    expect(result).toMatchObject({
      ok: false,
      code: 'NO_VALID_ACTION',
      problems: ['args.campaignId is required', 'args.campaign is not an accepted argument'],
    });
  });
});
