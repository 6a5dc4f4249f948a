/** The policy, for admins: the version in force, its history, a dry run of a candidate, storing a new version. */
import type {
  ChangePolicyData,
  ChangePolicyResponse,
  GetPolicyData,
  GetPolicyResponse,
  GetPolicyVersionData,
  GetPolicyVersionResponse,
  ListPolicyVersionsData,
  ListPolicyVersionsResponse,
  PolicyDryRunReportDto,
  PolicyProblemDto,
  PolicyRefusedResponseDto,
  PolicyVersionDto,
  PolicyVersionPageDto,
  PolicyVersionSummaryDto,
  RunPolicyDryRunData,
  RunPolicyDryRunResponse,
} from '../generated/types.gen';
import { ApiError, json, send, type Session, url } from './http';

export type PolicyVersion = PolicyVersionDto;
export type PolicyVersionSummary = PolicyVersionSummaryDto;
export type PolicyProblem = PolicyProblemDto;
export type DryRunReport = PolicyDryRunReportDto;
export type PolicyEffect = DryRunReport['changes'][number]['from'];
/** The rules as the admin wrote them: the server reads and checks them (readPolicy). */
export type PolicyRules = ChangePolicyData['body']['rules'];

/** The version every server enforces now (0, the built-in policy, until an admin stores one). */
export async function getPolicy(session: Session): Promise<PolicyVersion> {
  return json<GetPolicyResponse>('GET', url<GetPolicyData>('/admin/policy', {}), session);
}

export async function getPolicyVersion(session: Session, version: number): Promise<PolicyVersion> {
  const path = url<GetPolicyVersionData>('/admin/policy/versions/{version}', { path: { version } });
  return json<GetPolicyVersionResponse>('GET', path, session);
}

/** A version as the policy file the server writes (YAML, with comments naming the version), to keep in git. */
export async function policyFile(session: Session, version: number): Promise<Blob> {
  const path = url<GetPolicyVersionData>('/admin/policy/versions/{version}', { path: { version }, query: { format: 'yaml' } });
  return (await send('GET', path, session)).blob();
}

/** One page of stored versions, newest first; pass `nextCursor` back for older ones. */
export async function listPolicyVersions(session: Session, cursor: string | null): Promise<PolicyVersionPageDto> {
  const path = url<ListPolicyVersionsData>('/admin/policy/versions', { query: { cursor: cursor ?? undefined } });
  return json<ListPolicyVersionsResponse>('GET', path, session);
}

/** Stores `rules` as the next version, in force on every server within a second. */
export async function changePolicy(session: Session, rules: PolicyRules, reason: string): Promise<PolicyVersion> {
  const body: ChangePolicyData['body'] = { rules, reason };
  return json<ChangePolicyResponse>('PUT', url<ChangePolicyData>('/admin/policy', {}), session, body);
}

/** What `rules` would have decided differently over the newest `limit` recorded tool calls. Writes nothing. */
export async function dryRunPolicy(session: Session, rules: PolicyRules, limit: number): Promise<DryRunReport> {
  const body: RunPolicyDryRunData['body'] = { rules, limit };
  return json<RunPolicyDryRunResponse>('POST', url<RunPolicyDryRunData>('/admin/policy/dry-run', {}), session, body);
}

/** Every problem of a policy the server refused (400 POLICY.INVALID); none for any other error. */
export function policyProblems(error: unknown): PolicyProblem[] {
  if (!(error instanceof ApiError) || error.code !== 'POLICY.INVALID') return [];
  const problems = (error.body as Partial<PolicyRefusedResponseDto> | null)?.problems;
  return Array.isArray(problems) ? problems : [];
}
