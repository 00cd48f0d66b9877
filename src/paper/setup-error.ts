/**
 * The in-process venue could not be prepared for paper trading (a saved state that cannot be
 * read or belongs to another wallet, a failed first funding). Its own module: `stratd run`
 * recognises it without loading the venue's code.
 */
export class PaperSetupError extends Error {
  override readonly name = 'PaperSetupError';
  readonly kind = 'paper_setup';
}
