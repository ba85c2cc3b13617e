/**
 * Where an addon may send: an http(s) URL whose host resolves to public addresses only, unless
 * private ones are allowed (ADDON_ALLOW_PRIVATE_URLS) or the host is listed (ADDON_ALLOWED_HOSTS).
 * The address checked is the address connected to (`pinned`), so a name that resolves elsewhere
 * on the second look-up reaches nothing private. The ranges are Unleash 8.2's (its validate-url).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Why a URL is refused; the message is the reason shown. */
export class AddonUrlError extends Error {
  override name = 'AddonUrlError';
}

export interface UrlPolicy {
  allowPrivate: boolean;
  /** Host names allowed whatever they resolve to, lower-case. */
  allowedHosts: readonly string[];
}

export interface CheckedUrl {
  url: URL;
  /** The address to connect to: the first the host resolved to. */
  address: string;
  family: 4 | 6;
}

// Two lists: a BlockList also matches an IPv4 address against its IPv6 rules through the mapped
// range ::ffff:0:0/96, which would make every IPv4 address private.
const PRIVATE_V4 = new BlockList();
const PRIVATE_V6 = new BlockList();
for (const [net, prefix] of [
  ['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['169.254.0.0', 16], ['0.0.0.0', 8],
  ['100.64.0.0', 10], ['192.0.0.0', 24], ['192.0.2.0', 24], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) PRIVATE_V4.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::1', 128], ['::', 128], ['fe80::', 10], ['fc00::', 7], ['ff00::', 8], ['2001:db8::', 32], ['2002::', 16], ['64:ff95::', 96],
  ['::ffff:0:0', 96],
] as const) PRIVATE_V6.addSubnet(net, prefix, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !PRIVATE_V4.check(address, 'ipv4');
  if (family !== 6) return false;
  // An IPv4 address written as IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it is.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return !PRIVATE_V4.check(mapped[1]!, 'ipv4');
  return !PRIVATE_V6.check(address, 'ipv6');
}

/** A look-up that does not answer within this is a host that did not resolve (a request waits on it when a URL is saved). */
const LOOKUP_TIMEOUT_MS = 5000;

async function resolve(host: string): Promise<Array<{ address: string; family: number }>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AddonUrlError(`Hostname did not resolve: ${host}`)), LOOKUP_TIMEOUT_MS);
  });
  try {
    return await Promise.race([lookup(host, { all: true, verbatim: false }), late]);
  } catch (err) {
    if (err instanceof AddonUrlError) throw err;
    throw new AddonUrlError(`Hostname did not resolve: ${host}`);
  } finally {
    clearTimeout(timer);
  }
}

/** The URL checked against the policy and the address to connect to; AddonUrlError says why not. */
export async function checkUrl(raw: string, policy: UrlPolicy): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AddonUrlError('Invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AddonUrlError(`Invalid protocol: ${url.protocol}`);
  const host = url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  const resolved = literal !== 0 ? [{ address: host, family: literal }] : await resolve(host);
  if (resolved.length === 0) throw new AddonUrlError(`Hostname did not resolve: ${host}`);
  if (!policy.allowPrivate && !policy.allowedHosts.includes(host)) {
    const blocked = resolved.find(({ address }) => !isPublicAddress(address));
    if (blocked) throw new AddonUrlError(`URL resolves to a non-public address: ${blocked.address}`);
  }
  const first = resolved[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
