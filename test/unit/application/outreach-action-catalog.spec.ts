import {
  outreachSystemPrompt,
  outreachUserPrompt,
  OUTREACH_SYSTEM_PROMPT,
} from '../../../src/application/outreach/outreach-planner.prompt';
import { ActionCatalog, BUILT_IN_ACTIONS } from '../../../src/domain/outreach/action-catalog';
import { checkProposal } from '../../../src/domain/outreach/actions';
import { availableActions, fitProblems } from '../../../src/domain/outreach/planning';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';
import { taskContext } from '../../fakes/outreach/proposals';
import { SEND_SMS } from '../../fakes/outreach/sms-channel';

const schemas = new AjvSchemaValidator();
const catalog = new ActionCatalog([SEND_SMS]);
const NOW = new Date('2026-03-02T09:00:00Z');
const SMS = { action: 'send_sms', args: { to: '+15555550123', text: 'Hello Jane' }, reason: 'The lead asked for a text message.' };

describe('actions a channel declares', () => {
  it('are checked against the contract the channel brings, each problem naming its field', () => {
    expect(checkProposal(SMS, schemas, catalog)).toEqual({ ok: true, value: SMS });
    const refused = checkProposal({ ...SMS, args: { to: 'jane', text: '' } }, schemas, catalog);
    expect(refused.ok).toBe(false);
    const problems = refused.ok ? [] : refused.problems;
    expect(problems.some((problem) => problem.startsWith('args.to'))).toBe(true);
    expect(problems.some((problem) => problem.startsWith('args.text'))).toBe(true);
  });

  it('are refused where no channel declares them, the answer listing the actions on offer', () => {
    const refused = checkProposal(SMS, schemas, BUILT_IN_ACTIONS);
    expect(refused).toEqual({
      ok: false,
      problems: [
        'action must be one of linkedin_scrape_profile, linkedin_send_message, send_email, wait_cooldown, refresh_session, complete_campaign',
      ],
    });
  });

  it('give their task type its action and kind: a SendSms task offers send_sms, and only it besides wait and refresh', () => {
    const context = taskContext('SendSms');
    expect(catalog.taskAction('SendSms')).toEqual({ action: 'send_sms', kind: 'sms' });
    expect(availableActions(context, catalog)).toEqual(['send_sms', 'wait_cooldown', 'refresh_session']);
    expect(fitProblems(SMS, context, catalog)).toEqual([]);
    expect(fitProblems(SMS, taskContext('SendEmail'), catalog)).toEqual([
      'action send_sms does not fit this cycle: expected one of send_email, wait_cooldown, refresh_session',
    ]);
    expect(catalog.taskTypesOf('sms')).toEqual(['SendSms']);
  });

  it('are listed in the planner prompt with their arguments; the built-in prompt is unchanged', () => {
    expect(outreachSystemPrompt(catalog)).toContain('- send_sms {to, text}: Send a short text message to the lead');
    expect(outreachSystemPrompt()).toBe(OUTREACH_SYSTEM_PROMPT);
    expect(OUTREACH_SYSTEM_PROMPT).not.toContain('send_sms');
    const sms = taskContext('SendSms');
    const context = { ...sms, quota: { ...sms.quota, sms: sms.quota.email } };
    expect(outreachUserPrompt(context, NOW, catalog)).toContain('Available tools: send_sms, wait_cooldown, refresh_session');
  });

  it('refuse the start when a name or a task type is declared twice, or clashes with a built-in one', () => {
    expect(() => new ActionCatalog([SEND_SMS, SEND_SMS])).toThrow('The action send_sms is declared twice');
    expect(() => new ActionCatalog([{ ...SEND_SMS, name: 'send_email' }])).toThrow('The action send_email is declared twice');
    expect(() => new ActionCatalog([{ ...SEND_SMS, name: 'send_text', taskType: 'SendEmail' }])).toThrow(
      'The task type SendEmail is declared twice',
    );
  });
});
