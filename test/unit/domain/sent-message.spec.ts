import { type ProposedAction, sentMessageOf, withSentMessage } from '../../../src/domain/outreach/actions';

describe('sentMessageOf', () => {
  it('gives a LinkedIn message as sent to the profile, with no subject', () => {
    const action: ProposedAction = {
      action: 'linkedin_send_message',
      args: { profileUrl: 'https://www.linkedin.com/in/ada/', message: 'Hello Ada,\nshall we talk?' },
    };
    expect(sentMessageOf(action)).toEqual({
      channel: 'linkedin',
      recipient: 'https://www.linkedin.com/in/ada/',
      subject: null,
      text: 'Hello Ada,\nshall we talk?',
    });
  });

  it('gives an email as sent to its address, with its subject and body word for word', () => {
    const action: ProposedAction = {
      action: 'send_email',
      args: { to: 'ada@example.com', subject: 'Quick question', body: '  Dear Ada,\n\nTwo lines.  ' },
    };
    expect(sentMessageOf(action)).toEqual({
      channel: 'email',
      recipient: 'ada@example.com',
      subject: 'Quick question',
      text: '  Dear Ada,\n\nTwo lines.  ',
    });
  });

  it.each<ProposedAction>([
    { action: 'linkedin_scrape_profile', args: { profileUrl: 'https://www.linkedin.com/in/ada/', fields: ['name'] } },
    { action: 'wait_cooldown', args: { durationHours: 2 } },
    { action: 'refresh_session', args: { secretName: 'linkedin-session' } },
    { action: 'complete_campaign', args: { campaignId: 'c1' } },
  ])('gives nothing for $action, which sends no message', (action) => {
    expect(sentMessageOf(action)).toBeNull();
  });
});

describe('withSentMessage', () => {
  it("adds what a message action sent to the task's output, and leaves any other action's output as it is", () => {
    const message: ProposedAction = {
      action: 'linkedin_send_message',
      args: { profileUrl: 'https://www.linkedin.com/in/ada/', message: 'Hi' },
    };
    expect(withSentMessage({ messageId: 'm1' }, message)).toEqual({
      messageId: 'm1',
      sent: { channel: 'linkedin', recipient: 'https://www.linkedin.com/in/ada/', subject: null, text: 'Hi' },
    });
    const lookUp: ProposedAction = {
      action: 'linkedin_scrape_profile',
      args: { profileUrl: 'https://www.linkedin.com/in/ada/', fields: ['name'] },
    };
    const output = { profile: { name: 'Ada' } };
    expect(withSentMessage(output, lookUp)).toBe(output);
  });
});
