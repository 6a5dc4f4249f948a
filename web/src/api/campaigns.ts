/** Outreach campaigns: their settings, leads, cycles and tasks, and whether workers run them. */
import type {
  CampaignDetailsResponseDto,
  CampaignPageDto,
  CampaignResponseDto,
  CampaignTaskDto,
  CampaignTaskPageDto,
  CreateCampaignData,
  CreateCampaignResponse,
  CycleOutcomeDto,
  DailyLimitsDto,
  GetCampaignData,
  GetCampaignResponse,
  GetOutreachStatusData,
  GetOutreachStatusResponse,
  ImportLeadsData,
  ImportLeadsResponse,
  LeadImportReportDto,
  ListCampaignsData,
  ListCampaignsResponse,
  ListCampaignTasksData,
  ListCampaignTasksResponse,
  PauseCampaignData,
  RunCampaignCycleData,
  RunCampaignCycleResponse,
  StartCampaignData,
  StartCampaignResponse,
  UpdateCampaignData,
  UpdateCampaignResponse,
} from '../generated/types.gen';
import { every, json, type Session, url } from './http';

export type Campaign = CampaignResponseDto;
export type QuotaKind = keyof DailyLimitsDto;
export const QUOTA_KINDS = every<QuotaKind>()(['profile_lookup', 'linkedin_message', 'email']);
export type CampaignDetails = CampaignDetailsResponseDto;
export type LeadImportReport = LeadImportReportDto;
export type CampaignTask = CampaignTaskDto;
export type CycleOutcome = CycleOutcomeDto;

const campaignPath = (session: Session, campaignId: string) => ({ userId: session.userId, campaignId });

export async function listCampaigns(session: Session): Promise<Campaign[]> {
  const path = url<ListCampaignsData>('/api/{userId}/campaigns', { path: { userId: session.userId }, query: { limit: 100 } });
  const page: CampaignPageDto = await json<ListCampaignsResponse>('GET', path, session);
  return page.items;
}

export async function createCampaign(session: Session, name: string): Promise<Campaign> {
  const body: CreateCampaignData['body'] = { name };
  return json<CreateCampaignResponse>(
    'POST',
    url<CreateCampaignData>('/api/{userId}/campaigns', { path: { userId: session.userId } }),
    session,
    body,
  );
}

export async function getCampaign(session: Session, id: string): Promise<CampaignDetails> {
  return json<GetCampaignResponse>(
    'GET',
    url<GetCampaignData>('/api/{userId}/campaigns/{campaignId}', { path: campaignPath(session, id) }),
    session,
  );
}

export async function importLeadsCsv(session: Session, id: string, csv: string): Promise<LeadImportReport> {
  const path = url<ImportLeadsData>('/api/{userId}/campaigns/{campaignId}/leads', { path: campaignPath(session, id) });
  return json<ImportLeadsResponse>('POST', path, session, csv, 'text/csv');
}

export async function setCampaignRunning(session: Session, id: string, running: boolean): Promise<Campaign> {
  const path = running
    ? url<StartCampaignData>('/api/{userId}/campaigns/{campaignId}/start', { path: campaignPath(session, id) })
    : url<PauseCampaignData>('/api/{userId}/campaigns/{campaignId}/pause', { path: campaignPath(session, id) });
  return json<StartCampaignResponse>('POST', path, session);
}

export async function runCycle(session: Session, id: string): Promise<CycleOutcome> {
  const path = url<RunCampaignCycleData>('/api/{userId}/campaigns/{campaignId}/cycles', { path: campaignPath(session, id) });
  return json<RunCampaignCycleResponse>('POST', path, session);
}

/** Changes what `changes` names: the brief, the review mode, limits, the name. */
export async function updateCampaign(session: Session, id: string, changes: UpdateCampaignData['body']): Promise<Campaign> {
  const path = url<UpdateCampaignData>('/api/{userId}/campaigns/{campaignId}', { path: campaignPath(session, id) });
  return json<UpdateCampaignResponse>('PATCH', path, session, changes);
}

/** How many outreach workers reported lately: 0 means campaigns move only by "Run one cycle". */
export async function getOutreachStatus(session: Session): Promise<GetOutreachStatusResponse> {
  return json<GetOutreachStatusResponse>(
    'GET',
    url<GetOutreachStatusData>('/api/{userId}/outreach/status', { path: { userId: session.userId } }),
    session,
  );
}

/** Every task of the campaign, following the cursor. */
export async function listCampaignTasks(session: Session, id: string): Promise<CampaignTask[]> {
  const tasks: CampaignTask[] = [];
  let cursor: string | null = null;
  do {
    const path = url<ListCampaignTasksData>('/api/{userId}/campaigns/{campaignId}/tasks', {
      path: campaignPath(session, id),
      query: { limit: 100, cursor: cursor ?? undefined },
    });
    const page: CampaignTaskPageDto = await json<ListCampaignTasksResponse>('GET', path, session);
    tasks.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && tasks.length < 5000);
  return tasks;
}
