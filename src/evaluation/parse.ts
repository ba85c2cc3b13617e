/**
 * Parsers for typed constraint values. Each returns null instead of throwing: evaluation must
 * never throw, whatever the configuration or the context holds.
 */
import semver from 'semver';
import { Address4, Address6 } from 'ip-address';

export type SemVer = semver.SemVer;

/**
 * SemVer 2.0 as node-semver 7 parses it in strict mode (surrounding whitespace trimmed), except
 * that a leading `v` is refused: the client specification (14, `F8.invalidSemverWithLeadingV`)
 * treats `v2.0.0` as invalid, and by SPEC D2 Vane follows SDKs there, not Unleash's playground.
 */
export function parseSemver(text: string): SemVer | null {
  const trimmed = text.trim();
  const first = trimmed.charCodeAt(0);
  if (first === 0x76 /* v */ || first === 0x56 /* V */) return null;
  try {
    return semver.parse(trimmed);
  } catch {
    return null;
  }
}

/** An IP address as one integer: IPv4 fits a double exactly, IPv6 needs a bigint. */
export type IpAddress = { readonly v6: false; readonly n: number } | { readonly v6: true; readonly n: bigint };

/** A CIDR block (a bare address is a /32 or /128 block), as an inclusive integer range. */
export type IpRange =
  | { readonly v6: false; readonly lo: number; readonly hi: number }
  | { readonly v6: true; readonly lo: bigint; readonly hi: bigint };

/** A single IPv4 or IPv6 address; a CIDR suffix or anything unparseable gives null. */
export function parseIpAddress(text: string): IpAddress | null {
  if (text.includes('/')) return null;
  const range = parseIpRange(text);
  if (range === null) return null;
  return range.v6 ? { v6: true, n: range.lo } : { v6: false, n: range.lo };
}

/** `a.b.c.d`, `a.b.c.d/n`, an IPv6 address or an IPv6 CIDR block; null when invalid. */
export function parseIpRange(text: string): IpRange | null {
  try {
    if (Address4.isValid(text)) {
      const address = new Address4(text);
      return {
        v6: false,
        lo: Number(address.startAddress().bigInt()),
        hi: Number(address.endAddress().bigInt()),
      };
    }
    if (Address6.isValid(text)) {
      const address = new Address6(text);
      return { v6: true, lo: address.startAddress().bigInt(), hi: address.endAddress().bigInt() };
    }
  } catch {
    // ip-address validated the text; a throw here would be its bug, and "no match" is the safe answer.
  }
  return null;
}

export function ipInRange(ip: IpAddress, range: IpRange): boolean {
  if (ip.v6 !== range.v6) return false;
  return ip.n >= range.lo && ip.n <= range.hi;
}

/** JavaScript `Date(value)` as a time value; NaN when unparseable (comparisons then fail). */
export function parseDateValue(value: unknown): number {
  if (typeof value !== 'string' && typeof value !== 'number') return Number.NaN;
  return new Date(value).getTime();
}
