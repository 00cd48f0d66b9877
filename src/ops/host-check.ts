import { isIP } from 'node:net';

/**
 * The host name of a Host header, lower-case, without port or IPv6 brackets; '' when absent.
 */
function hostNameOf(header: string | undefined): string {
  const host = (header ?? '').trim().toLowerCase();
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']') > 0 ? host.indexOf(']') : undefined);
  const colon = host.lastIndexOf(':');
  return colon >= 0 && host.indexOf(':') === colon ? host.slice(0, colon) : host;
}

/**
 * Whether a request's Host may be answered without the control token. DNS rebinding makes a
 * browser send a page's own name (evil.example) to our address, loopback included; an IP literal
 * or localhost cannot come from such a page, and operators list their own names in
 * ops.allowedHosts.
 */
export function hostAllowed(header: string | undefined, allowedHosts: readonly string[]): boolean {
  const name = hostNameOf(header);
  if (name === '') return false;
  if (isIP(name) !== 0 || name === 'localhost' || name.endsWith('.localhost')) return true;
  return allowedHosts.some((allowed) => allowed.toLowerCase() === name);
}
