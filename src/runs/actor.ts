// Who is acting and where, as every use case needs it. Built once per interaction by the entry point
// (the Slack layer resolves the email and the user groups the policy names); the use cases never ask
// Slack anything.

import type { ChosenDestination } from './destinations.ts';

export interface Actor {
  /** Slack user id. */
  userId: string;
  /** The workspace the person acts from (the request's team id). */
  teamId: string | null;
  /** Its Enterprise Grid org, when the request says (absent or null: none or not known). */
  enterpriseId?: string | null;
  /** Sent as userEmail on runs; null when unknown. */
  email: string | null;
  /** The user groups (of those the policy names) the person belongs to. */
  groups: readonly string[];
  /** The person's IANA time zone (Slack's `tz`), for times told to them; null or absent: UTC. */
  timeZone?: string | null;
  /**
   * Many workspaces: whether Slack says the person belongs to the installation acted in (its workspace,
   * or its org when installed org-wide); absent where that is not judged (one workspace). A person who
   * does not (another organisation's, even where external users may act) never approves its requests.
   */
  installationMember?: boolean;
  /** The channel the person acted in (null: App Home, a DM the bot cannot name, a global shortcut). */
  channelId: string | null;
  /** Where the result of a run goes (null: a DM to the person). Defaults to channelId. */
  destinationChannel: string | null;
  /**
   * The destination as chosen (by the person, or saved by someone in channel defaults or an alias) with
   * what Slack said about it, read by the entry point; the gate judges it (destinations.ts). Absent when
   * the result goes where the person acted or to their DM.
   */
  destination?: ChosenDestination | null;
}

/** An actor with the destination defaulted to the channel acted in. */
export function actor(fields: Omit<Actor, 'destinationChannel' | 'email'> & Partial<Actor>): Actor {
  return {
    email: null,
    ...fields,
    destinationChannel: fields.destinationChannel === undefined ? fields.channelId : fields.destinationChannel,
  };
}
