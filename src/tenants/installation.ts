// One installation of the app: a workspace, or an Enterprise Grid org for an org-wide install. Its id is
// the team id, or the enterprise id when the install is org-wide (isEnterpriseInstall): every workspace
// of that org shares it. The request context carries it (`ctx.installation`, many-workspace mode only),
// and so does everything scoped by installation.

export interface TenantInstallation {
  /** The key of everything this installation owns: the team id, or the enterprise id when org-wide. */
  id: string;
  /** The workspace the request came from (for an org-wide install: the workspace acted in, if any). */
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
}

/** The id of the installation that serves a team / enterprise pair. */
export function installationIdOf(query: {
  teamId?: string | null | undefined;
  enterpriseId?: string | null | undefined;
  isEnterpriseInstall?: boolean | undefined;
}): string | null {
  if (query.isEnterpriseInstall) return query.enterpriseId || null;
  return query.teamId || null;
}

/**
 * The installation Bolt authorized a request for, from its per-request context (the authorize result:
 * teamId, enterpriseId, isEnterpriseInstall). Undefined when the request names neither.
 */
export function installationFromAuthorization(context: {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  isEnterpriseInstall?: boolean | undefined;
}): TenantInstallation | undefined {
  const isEnterpriseInstall = context.isEnterpriseInstall === true;
  const id = installationIdOf({ ...context, isEnterpriseInstall });
  if (!id) return undefined;
  return {
    id,
    teamId: context.teamId ?? null,
    enterpriseId: context.enterpriseId ?? null,
    isEnterpriseInstall,
  };
}
