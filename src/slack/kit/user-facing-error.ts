// An error whose message is already the one sentence a person should read.
export class UserFacingError extends Error {
  constructor(sentence: string) {
    super(sentence);
    this.name = 'UserFacingError';
  }
}
