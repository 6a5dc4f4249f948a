/** The consent page: what an MCP client asks the person for over OAuth, and their answer. */
import type {
  ApproveAuthorizationRequestData,
  ApproveAuthorizationRequestResponse,
  AuthorizationRequestResponseDto,
  DenyAuthorizationRequestData,
  DenyAuthorizationRequestResponse,
  GetAuthorizationRequestData,
  GetAuthorizationRequestResponse,
} from '../generated/types.gen';
import { json, type Session, url } from './http';

export type AuthorizationRequest = AuthorizationRequestResponseDto;

/** What an MCP client asks the person for (the consent page), by the id /authorize put in the page's URL. */
export async function getAuthorizationRequest(session: Session, requestId: string): Promise<AuthorizationRequest> {
  const path = url<GetAuthorizationRequestData>('/oauth/requests/{requestId}', { path: { requestId } });
  return json<GetAuthorizationRequestResponse>('GET', path, session);
}

/** The person allows the request (the scopes they left ticked); the answer is where the browser goes next. */
export async function approveAuthorizationRequest(session: Session, requestId: string, scopes: string[]): Promise<string> {
  const body: ApproveAuthorizationRequestData['body'] = { scopes };
  const path = url<ApproveAuthorizationRequestData>('/oauth/requests/{requestId}/approve', { path: { requestId } });
  return (await json<ApproveAuthorizationRequestResponse>('POST', path, session, body)).redirectTo;
}

export async function denyAuthorizationRequest(session: Session, requestId: string): Promise<string> {
  const path = url<DenyAuthorizationRequestData>('/oauth/requests/{requestId}/deny', { path: { requestId } });
  return (await json<DenyAuthorizationRequestResponse>('POST', path, session)).redirectTo;
}
