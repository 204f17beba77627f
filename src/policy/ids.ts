// The Slack ids a policy file names, each checked for its shape when the file is read.
import { z } from 'zod';

export const userIds = z.array(z.string().regex(/^[UW][A-Z0-9]+$/, 'must be a Slack user id like U012ABC')).optional();
export const groupIds = z
  .array(z.string().regex(/^S[A-Z0-9]+$/, 'must be a Slack user group id like S012ABC'))
  .optional();
export const channelIds = z
  .array(z.string().regex(/^[CGD][A-Z0-9]+$/, 'must be a Slack channel id like C012ABC'))
  .optional();
/** `teams:` of every rule kind: workspaces (T…) or Enterprise Grid orgs (E…, every workspace of the org). */
export const teamIds = z
  .array(
    z
      .string()
      .regex(
        /^[TE][A-Z0-9]{2,}$/,
        'must be a Slack workspace id like T012ABC or an Enterprise Grid org id like E012ABC',
      ),
  )
  .min(1, 'must name at least one workspace or org id (leave teams out to cover every workspace)')
  .optional();
