/**
 * A flag link's URL as Unleash 8.2 stores it: its `normalize-url` (v9) with `https` as the default
 * protocol and that library's defaults (test/fixtures/flag-links/reference.json holds what the
 * reference made of each kind of input). Pure; null when the WHATWG URL parser refuses the result.
 */

/** Percent-encodings of reserved characters, kept encoded in the query (decoding would change what it means). */
const ENCODED_RESERVED = /%(?:3A|2F|3F|23|5B|5D|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/gi;
/** Stands for one of them while the query is parsed and written again: `_` and letters are never encoded. */
const HELD = '__vanereserved';
const HELD_BACK = /__vanereserved([0-9A-F]{2})__/g;

const WWW = /^www\.(?!www\.)[a-z\-\d]{1,63}\.[a-z.\-\d]{2,63}$/;
const SCHEMES = new Set(['https:', 'http:', 'file:']);

/** A scheme other than http(s) and file (`mailto:`, `slack://`): such a URL is kept as given. */
function otherScheme(text: string): boolean {
  let protocol: string;
  try {
    protocol = new URL(text).protocol;
  } catch {
    return false;
  }
  const authority = text.slice(0, protocol.length + 2).toLowerCase() === `${protocol}//`;
  if (protocol === 'localhost:' && !authority && /^\d{1,5}([/?#]|$)/.test(text.slice(protocol.length))) return false;
  return (!protocol.includes('.') || authority) && !SCHEMES.has(protocol);
}

/** Runs of slashes in the path become one, except after an embedded scheme (`/redirect/https://x`). */
function collapseSlashes(path: string): string {
  const schemes = /\b[a-z][a-z\d+\-.]{1,50}:\/\//g;
  let result = '';
  let last = 0;
  for (let match = schemes.exec(path); match !== null; match = schemes.exec(path)) {
    result += path.slice(last, match.index).replaceAll(/\/{2,}/g, '/') + match[0];
    last = match.index + match[0].length;
  }
  return result + path.slice(last).replaceAll(/\/{2,}/g, '/');
}

function decodeKey(key: string): string {
  try {
    return decodeURIComponent(key.replaceAll('+', '%20'));
  } catch {
    return new URLSearchParams(`${key}=`).keys().next().value ?? key;
  }
}

/**
 * The query without `utm_*` parameters, sorted by name (stably), written as URLSearchParams writes
 * it and then decoded except for `&`, `#`, `?`, `%` and `+`; reserved characters that came encoded
 * stay encoded; a parameter that came without `=` keeps none.
 */
function normaliseQuery(search: string): string {
  const held = search.replaceAll(ENCODED_RESERVED, (code) => `${HELD}${code.slice(1).toUpperCase()}__`);
  const release = (text: string) => text.replaceAll(HELD_BACK, (_m, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
  const entries = [...new URLSearchParams(held)].filter(([key]) => !/^utm_\w+/i.test(release(key)));
  entries.sort(([a], [b]) => {
    const left = release(a);
    const right = release(b);
    return left < right ? -1 : left > right ? 1 : 0;
  });
  const written = new URLSearchParams(entries).toString();
  let decoded: string;
  try {
    decoded = decodeURIComponent(written.replaceAll(/%(?:26|23|3f|25|2b)/gi, (code) => `%25${code.slice(1)}`));
  } catch {
    decoded = written;
  }
  const query = decoded.replaceAll(HELD_BACK, '%$1');
  const bare = new Set<string>();
  for (const part of search.slice(1).split('&')) if (part && !part.includes('=')) bare.add(decodeKey(part));
  const parts = query.split('&').filter(Boolean).map((part) => {
    const at = part.indexOf('=');
    if (at === -1) return part.replaceAll('+', '%20');
    const key = part.slice(0, at).replaceAll('+', '%20');
    const value = part.slice(at + 1);
    if (value !== '') return `${key}=${value}`;
    if (key === '') return '=';
    return bare.has(decodeKey(key)) ? key : `${key}=`;
  });
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/** A `data:` URL: the media type lower-cased, `text/plain` and `charset=us-ascii` (the defaults) left out. */
function normaliseDataUrl(text: string): string | null {
  const match = /^data:(?<type>[^,]*?),(?<data>[^#]*?)(?:#(?<hash>.*))?$/.exec(text);
  if (!match?.groups) return null;
  const { type = '', data = '', hash } = match.groups;
  const parts = type.split(';');
  const base64 = parts.at(-1) === 'base64';
  if (base64) parts.pop();
  const mime = (parts.shift() ?? '').toLowerCase();
  const attributes = parts.map((attribute) => {
    const [key = '', rawValue = ''] = attribute.split('=').map((part) => part.trim());
    const value = key === 'charset' ? rawValue.toLowerCase() : rawValue;
    if (key === 'charset' && value === 'us-ascii') return '';
    return `${key}${value ? `=${value}` : ''}`;
  }).filter(Boolean);
  const media = [...attributes, ...(base64 ? ['base64'] : [])];
  if (media.length > 0 || (mime && mime !== 'text/plain')) media.unshift(mime);
  return `data:${media.join(';')},${base64 ? data.trim() : data}${hash ? `#${hash}` : ''}`;
}

export function normaliseLinkUrl(input: string): string | null {
  let text = input.trim();
  if (/^data:/i.test(text)) return normaliseDataUrl(text);
  if (otherScheme(text)) return text;
  const relative = !text.startsWith('//') && /^\.*\//.test(text);
  if (!relative) text = text.replace(/^(?!(?:\w+:)?\/\/)|^\/\//, 'https:');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  url.username = '';
  url.password = '';
  url.hash = url.hash.replace(/#?:~:text.*?$/i, '');
  if (url.pathname) url.pathname = collapseSlashes(url.pathname);
  if (url.pathname) {
    try {
      url.pathname = decodeURI(url.pathname).replaceAll('\\', '%5C');
    } catch {
      // a malformed escape: the path stays as parsed
    }
  }
  if (url.hostname) {
    url.hostname = url.hostname.replace(/\.$/, '');
    if (WWW.test(url.hostname)) url.hostname = url.hostname.replace(/^www\./, '');
  }
  const search = url.search;
  url.search = normaliseQuery(search);
  url.pathname = url.pathname.replace(/\/$/, '');
  let result = url.toString();
  if (url.hash === '') result = result.replace(/\/$/, '');
  return result;
}
