export const REDACTED = '[redacted]';

/** Keeps scheme, host and port; masks user info, query values and any path (providers put keys there). */
export function maskUrlSecrets(text: string): string {
  if (!URL.canParse(text)) return REDACTED;
  const url = new URL(text);
  if (url.username) url.username = REDACTED;
  if (url.password) url.password = REDACTED;
  for (const name of [...url.searchParams.keys()]) url.searchParams.set(name, REDACTED);
  // A bare "/" or a Redis database number ("/0") reveals nothing.
  if (!/^\/?\d*$/.test(url.pathname)) url.pathname = `/${REDACTED}`;
  return decodeURIComponent(url.toString());
}
