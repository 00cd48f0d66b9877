/** A target URL split into where to send and how to authenticate. */
interface SplitUrl {
  /** The URL without user info: fetch refuses a URL that carries credentials. */
  readonly url: string;
  /** "Basic …" from the URL's user:password, as curl sends it; absent when the URL has none. */
  readonly authorization?: string;
}

/** Whether `url` carries user info (`https://user:password@host/…`). */
export function hasUrlCredentials(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.username !== '' || parsed.password !== '';
}

/**
 * Moves a URL's `user:password@` into an Authorization: Basic header. fetch refuses such a URL
 * outright, and its error text repeats the whole URL, credentials and all: nothing would be
 * delivered and the password would reach the log and the failed job.
 */
export function splitUrlCredentials(url: string): SplitUrl {
  if (!hasUrlCredentials(url)) return { url };
  const parsed = new URL(url);
  const credentials = `${percentDecoded(parsed.username)}:${percentDecoded(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}` };
}

/** The URL keeps user info percent-encoded; Basic auth wants the characters themselves. */
function percentDecoded(text: string): string {
  // A "%" that starts no escape (the URL parser leaves "%zz" as it is) stays a literal "%".
  return text.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => Buffer.from(run.replaceAll('%', ''), 'hex').toString('utf8'));
}
