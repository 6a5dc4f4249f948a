import { checkPlannerError } from '../../../src/domain/outreach/actions';

/** A planner's error answer (an error object in place of an action), as a model writes it. */
const SEED_ERROR = {
  error: {
    code: 'QUOTA_EXCEEDED',
    message: 'Daily LinkedIn quota (50) exceeded, cannot propose scraping action',
    suggestedAction: 'wait_cooldown',
    suggestedArgs: { durationHours: 24 },
  },
};

describe(checkPlannerError.name, () => {
  it('reads an error with a code, a message and a suggested action with its arguments', () => {
    expect(checkPlannerError(SEED_ERROR)).toEqual({
      ok: true,
      value: {
        code: 'QUOTA_EXCEEDED',
        message: 'Daily LinkedIn quota (50) exceeded, cannot propose scraping action',
        suggestedAction: 'wait_cooldown',
        suggestedArgs: { durationHours: 24 },
      },
    });
  });

  it.each(['INVALID_CONTEXT', 'NO_VALID_ACTION'])('reads %s with no suggestion, the message trimmed', (code) => {
    expect(checkPlannerError({ error: { code, message: '  All leads processed.  ' } })).toEqual({
      ok: true,
      value: { code, message: 'All leads processed.', suggestedAction: null, suggestedArgs: null },
    });
    expect(checkPlannerError({ error: { code, message: 'x', suggestedAction: null, suggestedArgs: null } })).toMatchObject({ ok: true });
  });

  it.each([null, 'text', [], { action: 'wait_cooldown', args: {}, reason: 'a reason of some length' }, {}])(
    'leaves %j to the proposal checks: it is not in the error shape',
    (value) => {
      expect(checkPlannerError(value)).toBeNull();
    },
  );

  it.each([
    [{ error: 'QUOTA_EXCEEDED' }, 'error must be an object with code, message, suggestedAction and suggestedArgs'],
    [{ error: null }, 'error must be an object with code, message, suggestedAction and suggestedArgs'],
    [{ error: { code: 'RATE_LIMITED', message: 'm' } }, 'error.code must be one of QUOTA_EXCEEDED, INVALID_CONTEXT, NO_VALID_ACTION'],
    [{ error: { code: 'quota_exceeded', message: 'm' } }, 'error.code must be one of QUOTA_EXCEEDED, INVALID_CONTEXT, NO_VALID_ACTION'],
    [{ error: { code: 'NO_VALID_ACTION' } }, 'error.message must be a text of 1 to 500 characters'],
    [{ error: { code: 'NO_VALID_ACTION', message: '   ' } }, 'error.message must be a text of 1 to 500 characters'],
    [{ error: { code: 'NO_VALID_ACTION', message: 'm'.repeat(501) } }, 'error.message must be a text of 1 to 500 characters'],
    [
      { error: { code: 'NO_VALID_ACTION', message: 'm', suggestedAction: 'delete_account' } },
      'error.suggestedAction must be one of linkedin_scrape_profile, linkedin_send_message, send_email, wait_cooldown, refresh_session, complete_campaign, or null',
    ],
    [{ error: { code: 'NO_VALID_ACTION', message: 'm', suggestedArgs: [24] } }, 'error.suggestedArgs must be an object, or null'],
    [
      { error: { code: 'NO_VALID_ACTION', message: 'm', suggestedArgs: { note: 'n'.repeat(2000) } } },
      'error.suggestedArgs must be at most 2000 characters of JSON',
    ],
    [
      { error: { code: 'NO_VALID_ACTION', message: 'm', details: 'x' } },
      'error.details is not accepted: error has code, message, suggestedAction and suggestedArgs',
    ],
    [
      { error: { code: 'NO_VALID_ACTION', message: 'm' }, action: 'send_email' },
      'action is not accepted beside error: answer {action, args, reason} or {error}, not both',
    ],
  ])('refuses %j, naming the field', (value, problem) => {
    const checked = checkPlannerError(value);
    expect(checked).toMatchObject({ ok: false });
    expect(checked?.ok === false && checked.problems).toContain(problem);
  });
});
