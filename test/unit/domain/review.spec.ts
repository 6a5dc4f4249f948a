import {
  approvalPolicyOf,
  DEFAULT_APPROVAL_POLICY,
  DraftExpiredError,
  DraftHashMismatchError,
  DraftNotAwaitingReviewError,
  type DraftProposal,
  type DraftTarget,
  editDraft,
  InvalidDraftEditError,
  needsReview,
  reviewError,
  reviewProblem,
} from '../../../src/domain/outreach/review';
import { AjvSchemaValidator } from '../../../src/infrastructure/validation/ajv-schema-validator';

const schemas = new AjvSchemaValidator();

const TARGET: DraftTarget = {
  campaign: { id: 'c-1', name: 'Q1', status: 'active' },
  task: { id: 't-1', type: 'SendLinkedInMessage', attempts: 1 },
  lead: { name: 'Ada', linkedinUrl: 'https://www.linkedin.com/in/ada/', email: 'ada@example.com' },
  doNotContact: [],
};
const MESSAGE: DraftProposal = {
  action: 'linkedin_send_message',
  args: { profileUrl: 'https://www.linkedin.com/in/ada/', message: 'Hello Ada' },
  reason: 'First contact with the lead after the look-up',
};
const EMAIL: DraftProposal = {
  action: 'send_email',
  args: { to: 'ada@example.com', subject: 'Hi', body: 'Dear Ada' },
  reason: 'Follow the LinkedIn message up by email',
};
const EMAIL_TARGET: DraftTarget = { ...TARGET, task: { ...TARGET.task, type: 'SendEmail' } };

describe('needsReview', () => {
  it('never holds with none, always with all', () => {
    for (const approved of [0, 1, 5, 1000]) {
      expect(needsReview({ mode: 'none', firstN: 3 }, approved)).toBe(false);
      expect(needsReview({ mode: 'all', firstN: 3 }, approved)).toBe(true);
    }
  });

  it('holds the first N of a kind with first_n, then lets that kind run alone', () => {
    const policy = { mode: 'first_n', firstN: 3 } as const;
    expect([0, 1, 2, 3, 4].map((approved) => needsReview(policy, approved))).toEqual([true, true, true, false, false]);
  });
});

describe('reviewProblem', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const draft = { status: 'awaiting_review' as const, argumentsHash: 'a'.repeat(64), expiresAt: new Date('2026-11-24T12:00:00Z') };

  it('accepts a review of the hash the draft holds, before it expires', () => {
    expect(reviewProblem(draft, { argumentsHash: 'a'.repeat(64), now })).toBeNull();
  });

  it('refuses a decided draft, another hash, and an expired draft, in that order', () => {
    expect(reviewProblem({ ...draft, status: 'approved' }, { argumentsHash: 'b'.repeat(64), now })).toBe('not_awaiting_review');
    expect(reviewProblem(draft, { argumentsHash: 'b'.repeat(64), now })).toBe('hash_mismatch');
    expect(reviewProblem(draft, { argumentsHash: 'a'.repeat(64), now: draft.expiresAt })).toBe('expired');
  });

  it('maps each problem to its conflict', () => {
    expect(reviewError('not_awaiting_review', 'sent')).toBeInstanceOf(DraftNotAwaitingReviewError);
    expect(reviewError('not_awaiting_review', 'sent').message).toContain('sent');
    expect(reviewError('hash_mismatch', 'awaiting_review')).toBeInstanceOf(DraftHashMismatchError);
    expect(reviewError('expired', 'awaiting_review')).toBeInstanceOf(DraftExpiredError);
  });
});

describe('editDraft', () => {
  it('changes a LinkedIn message and keeps its target and reason', () => {
    expect(editDraft(MESSAGE, { message: 'Hello Ada, edited' }, TARGET, schemas)).toEqual({
      ...MESSAGE,
      args: { ...MESSAGE.args, message: 'Hello Ada, edited' },
    });
  });

  it("changes an email's subject and body, never its recipient", () => {
    expect(editDraft(EMAIL, { subject: 'New', body: 'New body' }, EMAIL_TARGET, schemas).args).toEqual({
      to: 'ada@example.com',
      subject: 'New',
      body: 'New body',
    });
  });

  it('refuses a field the action does not have, by name', () => {
    expect(() => editDraft(MESSAGE, { subject: 'x' }, TARGET, schemas)).toThrow(expect.objectContaining({ field: 'edits.subject' }));
    expect(() => editDraft(EMAIL, { message: 'x' }, EMAIL_TARGET, schemas)).toThrow(expect.objectContaining({ field: 'edits.message' }));
    expect(() => editDraft(MESSAGE, { to: 'boss@victim.example' } as never, TARGET, schemas)).toThrow(InvalidDraftEditError);
  });

  it('re-checks the edit with the rules of a proposal: length, and the do-not-contact list', () => {
    expect(() => editDraft(MESSAGE, { message: 'x'.repeat(1901) }, TARGET, schemas)).toThrow(
      expect.objectContaining({ field: 'edits.message' }),
    );
    expect(() => editDraft(MESSAGE, { message: 'Hello again' }, { ...TARGET, doNotContact: [TARGET.lead.linkedinUrl] }, schemas)).toThrow(
      InvalidDraftEditError,
    );
  });
});

describe('approvalPolicyOf', () => {
  it('defaults to none with N = 3 and keeps what is not given', () => {
    expect(approvalPolicyOf({}, DEFAULT_APPROVAL_POLICY)).toEqual({ ok: true, value: { mode: 'none', firstN: 3 } });
    expect(approvalPolicyOf({ mode: 'first_n' }, { mode: 'all', firstN: 7 })).toEqual({ ok: true, value: { mode: 'first_n', firstN: 7 } });
  });

  it('refuses an unknown mode or an N out of range, naming the field', () => {
    expect(approvalPolicyOf({ mode: 'some' }, DEFAULT_APPROVAL_POLICY)).toEqual({
      ok: false,
      problem: expect.objectContaining({ field: 'approvalMode' }),
    });
    for (const firstN of [0, 1001, 2.5, '3']) {
      expect(approvalPolicyOf({ firstN }, DEFAULT_APPROVAL_POLICY)).toEqual({
        ok: false,
        problem: expect.objectContaining({ field: 'approvalFirstN' }),
      });
    }
  });
});
