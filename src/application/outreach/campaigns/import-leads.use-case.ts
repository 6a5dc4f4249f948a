import { Injectable } from '@nestjs/common';
import { CampaignStateError } from '../../../domain/outreach/campaign';
import { ActionCatalog, BUILT_IN_ACTIONS, stepsProblem } from '../../../domain/outreach/action-catalog';
import { TASK_STEPS } from '../../../domain/outreach/outreach-task';
import { draftLead, InvalidLeadError, type LeadDraft } from '../../../domain/outreach/lead';
import { leadsFromCsv, type LeadRowError } from '../../../domain/outreach/lead-csv';
import { Clock } from '../../shared/ports/clock.port';
import { CampaignRepository } from '../ports/campaign-repository.port';
import { CsvReader } from '../ports/csv-reader.port';
import { type CampaignRef, ownCampaign } from './own-campaign';

/** Leads one JSON request may carry. */
export const LEAD_IMPORT_MAX = 1000;

/**
 * JSON comes from a program: one bad lead refuses the whole request (naming it). CSV comes
 * from a spreadsheet: bad rows are reported by line and the good ones imported.
 */
export type LeadSource =
  | {
      readonly format: 'json';
      readonly leads: readonly { name?: unknown; linkedinUrl?: unknown; email?: unknown }[];
      /** The task types each new lead gets, in order; the built-in steps when not given. */
      readonly steps?: unknown;
    }
  | { readonly format: 'csv'; readonly text: string };

export interface LeadImportReport {
  readonly imported: number;
  /**
   * Leads skipped because the campaign already has that profile (or, in JSON, an earlier
   * entry of the same request has it); `line` is the CSV line, null for JSON.
   */
  readonly duplicates: readonly { readonly line: number | null; readonly linkedinUrl: string }[];
  /** CSV rows not imported, by line. */
  readonly errors: readonly LeadRowError[];
}

interface Candidate {
  readonly line: number | null;
  readonly lead: LeadDraft;
  /** An earlier candidate has the same profile URL. */
  readonly repeat: boolean;
}

@Injectable()
export class ImportLeadsUseCase {
  constructor(
    private readonly campaigns: CampaignRepository,
    private readonly clock: Clock,
    private readonly csv: CsvReader,
    private readonly actions: ActionCatalog = BUILT_IN_ACTIONS,
  ) {}

  /**
   * Adds each new lead with its tasks: the JSON's `steps` (task types the channels in service
   * do, in order), else look-up, LinkedIn message, and email when it has one.
   * @throws MalformedCsvError when the CSV's quotes are broken: nothing is imported.
   */
  async execute(input: CampaignRef & { source: LeadSource }): Promise<LeadImportReport> {
    const campaign = await ownCampaign(this.campaigns, input);
    if (campaign.status === 'completed') {
      throw new CampaignStateError('The campaign is completed; leads cannot be added to it');
    }
    const steps = input.source.format === 'json' && input.source.steps !== undefined ? input.source.steps : TASK_STEPS;
    const wrong = stepsProblem(steps, this.actions);
    if (wrong) throw new InvalidLeadError(wrong.field, wrong.message);
    const { candidates, errors } =
      input.source.format === 'json' ? fromJson(input.source.leads) : fromCsv(this.csv.records(input.source.text));
    const { added, existing } = await this.campaigns.addLeads(
      campaign.id,
      candidates.filter((candidate) => !candidate.repeat).map((candidate) => candidate.lead),
      this.clock.now(),
      steps as readonly string[],
    );
    const alreadyThere = new Set(existing);
    return {
      imported: added.length,
      duplicates: candidates
        .filter((candidate) => candidate.repeat || alreadyThere.has(candidate.lead.linkedinUrl))
        .map((candidate) => ({ line: candidate.line, linkedinUrl: candidate.lead.linkedinUrl })),
      errors,
    };
  }
}

function fromJson(leads: Extract<LeadSource, { format: 'json' }>['leads']): { candidates: Candidate[]; errors: LeadRowError[] } {
  if (leads.length === 0 || leads.length > LEAD_IMPORT_MAX) {
    throw new InvalidLeadError('leads', `leads must hold 1 to ${LEAD_IMPORT_MAX} leads; send more in several requests`);
  }
  const seen = new Set<string>();
  const candidates = leads.map((raw, index): Candidate => {
    let lead: LeadDraft;
    try {
      lead = draftLead(raw);
    } catch (error) {
      if (!(error instanceof InvalidLeadError)) throw error;
      throw new InvalidLeadError(`leads[${index}].${error.field}`, `leads[${index}]: ${error.message}`);
    }
    const repeat = seen.has(lead.linkedinUrl);
    seen.add(lead.linkedinUrl);
    return { line: null, lead, repeat };
  });
  return { candidates, errors: [] };
}

function fromCsv(records: Parameters<typeof leadsFromCsv>[0]): { candidates: Candidate[]; errors: LeadRowError[] } {
  // leadsFromCsv reports a profile repeated within the file as an error of the later row.
  const parsed = leadsFromCsv(records);
  return {
    candidates: parsed.leads.map(({ line, lead }) => ({ line, lead, repeat: false })),
    errors: [...parsed.errors],
  };
}
