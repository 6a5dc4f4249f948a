import { readUnsubscribePayload, unsubscribePayload, type UnsubscribeSubject } from '../../../domain/outreach/unsubscribe';
import type { LinkSigner } from '../ports/link-signer.port';

/** The path Bridle serves unsubscribe links under (interfaces/http/outreach/unsubscribe.controller.ts). */
export const UNSUBSCRIBE_PATH = '/unsubscribe/';
/** Far more than any link Bridle makes (about 200 characters for a usual address): longer is refused unread. */
const TOKEN_MAX_LENGTH = 1024;

/**
 * Makes and reads the signed, single-purpose links that take an address off a campaign
 * owner's outreach: `<PUBLIC_BASE_URL>/unsubscribe/<token>`.
 */
export class UnsubscribeLinks {
  /** @param publicBaseUrl where people reach Bridle, without a trailing slash (PUBLIC_BASE_URL). */
  constructor(
    private readonly signer: LinkSigner,
    private readonly publicBaseUrl: string,
  ) {}

  token(subject: UnsubscribeSubject): string {
    return this.signer.sign(unsubscribePayload(subject));
  }

  url(subject: UnsubscribeSubject): string {
    return `${this.publicBaseUrl}${UNSUBSCRIBE_PATH}${this.token(subject)}`;
  }

  /** The subject of a token this service made for an unsubscribe link, or null for anything else. */
  read(token: string): UnsubscribeSubject | null {
    if (token.length > TOKEN_MAX_LENGTH) return null;
    const payload = this.signer.open(token);
    return payload === null ? null : readUnsubscribePayload(payload);
  }
}
