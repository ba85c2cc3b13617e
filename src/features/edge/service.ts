import { edgeUnauthorized } from '../../errors.js';
import type { EdgeSources } from './sources.js';

export interface ValidatedToken {
  token: string;
  type: string;
  projects: string[];
  environment: string;
}

/** How far a signed request's `x-timestamp` may be from now, either way (Unleash's REQUEST_LIFETIME). */
const REQUEST_LIFETIME_MS = 5 * 60_000;

const HMAC_AUTHORIZATION = /^HMAC ([^:]+):(.+)$/;

/** The headers of a signed token request (`POST /edge/issue-token`). */
export interface SignedRequestHeaders {
  authorization?: string;
  timestamp?: string;
  nonce?: string;
  bodyHash?: string;
}

/** Unleash Edge's two routes (docs/rules.md §1.4 "Unleash Edge"). */
export class EdgeService {
  constructor(private readonly sources: EdgeSources) {}

  /** The type of the live token a secret belongs to, if any. */
  tokenType(secret: string): string | undefined {
    return this.sources.token(secret)?.type;
  }

  /**
   * The given secrets that are live tokens, in the order given, repeats kept; the others left out
   * (measured: an unknown, an expired-looking and a padded secret were dropped, a repeated one listed twice).
   */
  validate(secrets: readonly string[]): { tokens: ValidatedToken[] } {
    const tokens: ValidatedToken[] = [];
    for (const secret of secrets) {
      const found = this.sources.token(secret);
      if (found) tokens.push({ token: secret, type: found.type, projects: found.projects, environment: found.environment });
    }
    return { tokens };
  }

  /**
   * A signed request for tokens, checked as Unleash checks it, in its order. Unleash then records
   * the nonce under the client, and a client exists only when EDGE_CLIENT_SECRET configured one
   * (Enterprise Edge's); Vane has none, so the insert fails as it does on an Unleash without it,
   * and every request that gets that far is refused as a replay (measured: a first nonce answered
   * 401 "Replay detected").
   */
  issueTokens(headers: SignedRequestHeaders, now = Date.now()): never {
    if (!HMAC_AUTHORIZATION.test(headers.authorization ?? '')) throw edgeUnauthorized('Missing HMAC authorization header');
    if (!headers.timestamp || !headers.nonce || !headers.bodyHash) throw edgeUnauthorized('Missing content headers');
    // An unparseable timestamp is not stale: the difference is NaN, which compares false (measured: "garbage" went on to the replay check).
    if (Math.abs(now - Date.parse(headers.timestamp)) > REQUEST_LIFETIME_MS) throw edgeUnauthorized('Stale request');
    throw edgeUnauthorized('Replay detected');
  }
}
