import { z } from 'zod';

/** A campaign's daily and weekly limits as `campaigns` stores them: the row fields, for the campaign repository and the outreach cycle store alike. */
export const LIMIT_ROW_FIELDS = {
  limit_profile_lookup: z.number(),
  limit_linkedin_message: z.number(),
  limit_email: z.number(),
  weekly_limit_profile_lookup: z.number().nullable(),
  weekly_limit_linkedin_message: z.number().nullable(),
  weekly_limit_email: z.number().nullable(),
};
