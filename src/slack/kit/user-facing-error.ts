// An error whose message is already the one sentence a person should read.
export class UserFacingError extends Error {
  constructor(sentence: string) {
    super(sentence);
    this.name = 'UserFacingError';
  }
}

/**
 * Many workspaces: the installation in scope has no Runbook API to use (not connected, or its address was
 * withdrawn by the operator). Background work that keeps a position (the subscription scan) starts afresh
 * once it has one again, rather than catching up on everything in between.
 */
export class ApiUnavailableError extends UserFacingError {
  constructor(sentence: string) {
    super(sentence);
    this.name = 'ApiUnavailableError';
  }
}
