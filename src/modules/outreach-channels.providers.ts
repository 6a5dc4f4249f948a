import type { FactoryProvider, Provider } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OutreachChannels } from '../application/outreach/outreach-channels';
import { ActionCatalog } from '../domain/outreach/action-catalog';
import type { OutreachChannel } from '../application/outreach/ports/channels.port';
import { UnsubscribeLinks } from '../application/outreach/unsubscribe/unsubscribe-links';
import { AppConfig } from '../infrastructure/config/app-config';
import { PostgresEmailDeliveryLog } from '../infrastructure/outreach/email/postgres-email-delivery-log';
import { SmtpEmailChannel } from '../infrastructure/outreach/email/smtp-email-channel';
import { McpLinkedInChannel } from '../infrastructure/outreach/linkedin/mcp-linkedin-channel';
import { SandboxEmailChannel } from '../infrastructure/outreach/sandbox/sandbox-email-channel';
import { SandboxLinkedInChannel } from '../infrastructure/outreach/sandbox/sandbox-linkedin-channel';

/**
 * The outreach channels, as a multi-provider: each adapter is one binding (a token of its
 * own, built from the configuration), and OUTREACH_CHANNELS lists them all, followed by
 * ADDED_OUTREACH_CHANNELS. OutreachChannels keys them by the kinds they perform.
 */
export const OUTREACH_CHANNELS = Symbol('OUTREACH_CHANNELS');

/**
 * Channels added to the built-in ones: none in the service. The registration hook of a
 * deployment or a test (`overrideProvider(ADDED_OUTREACH_CHANNELS).useValue([…])`).
 */
export const ADDED_OUTREACH_CHANNELS = Symbol('ADDED_OUTREACH_CHANNELS');

/** One channel binding: a token of its own and how the adapter is made. */
function binding(
  name: string,
  useFactory: (config: AppConfig, dataSource: DataSource) => OutreachChannel | Promise<OutreachChannel>,
): FactoryProvider<OutreachChannel | Promise<OutreachChannel>> {
  return { provide: Symbol(`outreach channel: ${name}`), useFactory, inject: [AppConfig, DataSource] };
}

/** LinkedIn: the sandbox, or an MCP server you run (OUTREACH_LINKEDIN_MCP_*). */
const LINKEDIN = binding('linkedin', (config, dataSource) => {
  const target = config.outreach.linkedin;
  if (target.kind === 'sandbox') return new SandboxLinkedInChannel(dataSource);
  return McpLinkedInChannel.connect('url' in target ? { url: target.url } : { command: target.command, args: target.args }, {
    timeoutMs: config.outreach.actionTimeoutMs,
  });
});

/** Email: the sandbox's outbox, or SMTP (SMTP_URL). */
const EMAIL = binding('email', (config, dataSource) => {
  const target = config.outreach.email;
  if (target.kind === 'sandbox') return new SandboxEmailChannel(dataSource);
  // eslint-disable-next-line regexp/no-super-linear-move -- EMAIL_FROM is the operator's, read once at start
  const domain = /@([^>\s]+)>?\s*$/.exec(target.from)?.[1] ?? 'bridle.local';
  return new SmtpEmailChannel({ url: target.url, from: target.from, messageIdDomain: domain }, new PostgresEmailDeliveryLog(dataSource));
});

const BINDINGS = [LINKEDIN, EMAIL];

export const OUTREACH_CHANNEL_PROVIDERS: Provider[] = [
  ...BINDINGS,
  { provide: ADDED_OUTREACH_CHANNELS, useValue: [] },
  {
    provide: OUTREACH_CHANNELS,
    useFactory: (...channels: (OutreachChannel | readonly OutreachChannel[])[]): OutreachChannel[] => channels.flat(),
    inject: [...BINDINGS.map((each) => each.provide), ADDED_OUTREACH_CHANNELS],
  },
  {
    provide: OutreachChannels,
    useFactory: (channels: readonly OutreachChannel[], unsubscribe: UnsubscribeLinks) => new OutreachChannels(channels, unsubscribe),
    inject: [OUTREACH_CHANNELS, UnsubscribeLinks],
  },
  // Every action a cycle may take: the built-in ones and those the channels declare.
  { provide: ActionCatalog, useFactory: (channels: OutreachChannels) => channels.actions, inject: [OutreachChannels] },
];
