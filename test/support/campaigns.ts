import request from 'supertest';
import { DataSource } from 'typeorm';
import { type SignedInUser } from './accounts';
import { type AppUnderTest } from './test-app';

export interface CampaignBody {
  id: string;
  name: string;
  status: string;
  dailyLimits: Record<string, number>;
  weeklyLimits: Record<string, number | null>;
}

export interface TaskBody {
  id: string;
  leadName: string;
  leadLinkedinUrl: string;
  type: string;
  step: number;
  status: string;
}

/** A LinkedIn profile URL as the service stores it. */
export const profile = (slug: string) => `https://www.linkedin.com/in/${slug}/`;

/** The campaign endpoints of `sut`, for the describe that started it: paths, creation, lead imports, the tasks, SQL. */
export function campaignApi(sut: AppUnderTest) {
  const campaigns = (user: SignedInUser) => `/api/${user.userId}/campaigns`;
  const create = async (user: SignedInUser, body: object = { name: 'Outreach' }): Promise<CampaignBody> =>
    (await request(sut.http).post(campaigns(user)).set(user.auth).send(body).expect(201)).body;
  const importJson = (user: SignedInUser, campaignId: string, leads: unknown) =>
    request(sut.http)
      .post(`${campaigns(user)}/${campaignId}/leads`)
      .set(user.auth)
      .send({ leads });
  const importCsv = (user: SignedInUser, campaignId: string, text: string) =>
    request(sut.http)
      .post(`${campaigns(user)}/${campaignId}/leads`)
      .set(user.auth)
      .set('Content-Type', 'text/csv')
      .send(text);
  const sql = <T>(query: string, parameters: unknown[]) => sut.app.get(DataSource).query<T>(query, parameters);

  async function allTasks(user: SignedInUser, campaignId: string): Promise<TaskBody[]> {
    const tasks: TaskBody[] = [];
    let cursor: string | null = null;
    do {
      const res = await request(sut.http)
        .get(`${campaigns(user)}/${campaignId}/tasks`)
        .query({ limit: 100, ...(cursor ? { cursor } : {}) })
        .set(user.auth)
        .expect(200);
      tasks.push(...(res.body.items as TaskBody[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    return tasks;
  }

  return { campaigns, create, importJson, importCsv, sql, allTasks };
}
