import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  type ChannelCall,
  type ChannelLookup,
  type ChannelRecord,
  type ChannelRequest,
  type Profile,
  OutreachChannel,
} from '../../../application/outreach/ports/channels.port';
import { LINKEDIN_KINDS, performOnLinkedIn, type LinkedIn } from '../linkedin/linkedin-actions';
import type { ProfileField } from '../../../domain/outreach/actions';
import { ChannelError } from '../../../domain/outreach/channel-errors';
import { profileSlug } from '../../../domain/outreach/lead';
import { type LateFault, raise, type SandboxFault, takeFaultAndRecord } from './sandbox-faults';
import { z } from 'zod';
import { changeRows, selectRow, sql } from '../../persistence/sql';

/** What a sandbox action recorded: the profile read, or the message id. */
const RESULT = z.record(z.string(), z.unknown());
const ACTION_ROW = z.object({ kind: z.enum(['profile', 'message']), result: RESULT });
const RESULT_ROW = z.object({ result: RESULT });

const TITLES = ['CTO', 'VP Engineering', 'Head of Platform', 'Engineering Manager', 'Chief Product Officer', 'Staff Engineer'];
const COMPANIES = ['Acme Corp', 'Globex', 'Initech', 'Umbrella Labs', 'Hooli', 'Stark Industries', 'Wayne Enterprises'];
const CITIES = ['Berlin', 'London', 'Paris', 'Amsterdam', 'Lisbon', 'Madrid', 'Stockholm'];

/**
 * A simulated LinkedIn stored in the database, so a campaign runs end to end with no
 * account: profiles are derived from the URL, every message is recorded once per
 * idempotency key (a repeated key counts a call and sends nothing), and faults can be set.
 */
@Injectable()
export class SandboxLinkedInChannel extends OutreachChannel implements LinkedIn {
  readonly name = 'sandbox';
  readonly kinds = LINKEDIN_KINDS;

  constructor(private readonly dataSource: DataSource) {
    super();
  }

  perform(request: ChannelRequest): Promise<ChannelRecord> {
    return performOnLinkedIn(this, request);
  }

  async scrapeProfile(input: ChannelCall & { profileUrl: string; fields: readonly ProfileField[] }): Promise<Profile> {
    const full = sandboxProfile(input.profileUrl);
    const profile = Object.fromEntries(input.fields.map((field) => [field, full[field] ?? null]));
    // UNVERIFIABLE is for messages; a look-up under it is read and recorded as usual.
    const { fault, result } = await this.call(input, 'profile', null, { profile }, ['HANG_AFTER', 'UNVERIFIABLE']);
    if (fault === 'HANG_AFTER') await raise(fault, input.signal);
    return result!.profile as Profile;
  }

  async sendMessage(input: ChannelCall & { profileUrl: string; message: string }): Promise<{ messageId: string }> {
    const messageId = `sandbox-${input.idempotencyKey.slice(0, 24)}`;
    const { fault, result } = await this.call(input, 'message', input.message, { messageId }, ['HANG_AFTER']);
    if (fault === 'UNVERIFIABLE') return { messageId };
    if (fault === 'HANG_AFTER') await raise(fault, input.signal);
    return { messageId: result!.messageId as string };
  }

  async find(idempotencyKey: string): Promise<ChannelLookup> {
    const row = await selectRow(
      this.dataSource,
      sql`SELECT kind, result FROM sandbox_linkedin_actions WHERE idempotency_key = ${idempotencyKey}`,
      ACTION_ROW,
    );
    if (!row) return null;
    return row.kind === 'profile'
      ? { kind: 'profile', profile: row.result.profile as Profile }
      : { kind: 'message', messageId: row.result.messageId as string };
  }

  override async useSession(session: string): Promise<void> {
    if (!session) throw new ChannelError('SESSION_EXPIRED', 'An empty session is no session', 'no');
    await changeRows(this.dataSource, sql`DELETE FROM sandbox_faults WHERE channel = 'linkedin' AND code = 'SESSION_EXPIRED'`);
  }

  /** Records the effect once per key (a repeated key only counts the call), through takeFaultAndRecord. */
  private async call(
    input: ChannelCall & { profileUrl: string },
    kind: 'profile' | 'message',
    message: string | null,
    result: Record<string, unknown>,
    recordedUnder: readonly SandboxFault[],
  ): Promise<{ fault: LateFault | null; result: Record<string, unknown> | null }> {
    const { fault, recorded } = await takeFaultAndRecord(this.dataSource, {
      channel: 'linkedin',
      target: input.profileUrl,
      signal: input.signal,
      recordedUnder,
      effect: {
        insert: sql`INSERT INTO sandbox_linkedin_actions (idempotency_key, kind, profile_url, message, result)`,
        values: sql`${input.idempotencyKey}::varchar, ${kind}::varchar, ${input.profileUrl}::varchar, ${message}::text, ${JSON.stringify(result)}::jsonb`,
        onConflict: sql`ON CONFLICT (idempotency_key) DO UPDATE SET calls = sandbox_linkedin_actions.calls + 1 RETURNING result`,
        row: RESULT_ROW,
      },
    });
    return { fault, result: recorded?.result ?? null };
  }
}

/** A plausible, deterministic profile for a profile URL. */
export function sandboxProfile(profileUrl: string): Readonly<Record<ProfileField, string>> {
  const slug = profileSlug(profileUrl);
  const words = slug.split(/[-_]+/).filter((word) => /[a-z]/i.test(word) && !/^[0-9a-f]{6,}$/i.test(word));
  const name = (words.length ? words : [slug]).map((word) => word[0].toUpperCase() + word.slice(1)).join(' ');
  const hash = createHash('sha256').update(slug).digest();
  const title = TITLES[hash[0] % TITLES.length];
  const company = COMPANIES[hash[1] % COMPANIES.length];
  return {
    name,
    headline: `${title} at ${company}`,
    title,
    company,
    location: CITIES[hash[2] % CITIES.length],
    email: `${slug.replace(/[^a-z0-9.-]/gi, '')}@example.com`,
  };
}
