// Who is acting and where, as every use case needs it. Built once per interaction by the entry point
// (the Slack layer resolves the email and the user groups the policy names); the use cases never ask
// Slack anything.

export interface Actor {
  /** Slack user id. */
  userId: string;
  teamId: string | null;
  /** Sent as userEmail on runs; null when unknown. */
  email: string | null;
  /** The user groups (of those the policy names) the person belongs to. */
  groups: readonly string[];
  /** The channel the person acted in (null: App Home, a DM the bot cannot name, a global shortcut). */
  channelId: string | null;
  /** Where the result of a run goes (null: a DM to the person). Defaults to channelId. */
  destinationChannel: string | null;
}

/** An actor with the destination defaulted to the channel acted in. */
export function actor(fields: Omit<Actor, 'destinationChannel' | 'email'> & Partial<Actor>): Actor {
  return {
    email: null,
    ...fields,
    destinationChannel: fields.destinationChannel === undefined ? fields.channelId : fields.destinationChannel,
  };
}
