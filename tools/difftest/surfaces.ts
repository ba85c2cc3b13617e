/**
 * Differential tester, part 4: the SDK-facing surfaces asked the same way on both servers — API
 * tokens, the frontend API (POST and GET).
 */

/** A frontend API request: a POST body's `context`, or a GET query string (without `?`). */
export type FrontendRequest = { method: 'POST'; context: Record<string, unknown> } | { method: 'GET'; query: string };

/** Creates an API token of `type` on `base` and returns its secret. */
export async function createToken(
  base: string,
  adminToken: string,
  type: 'frontend' | 'client',
  environment: string,
  projects: string[],
): Promise<string> {
  const res = await fetch(`${base}/api/admin/api-tokens`, {
    method: 'POST',
    headers: { authorization: adminToken, 'content-type': 'application/json' },
    body: JSON.stringify({ tokenName: `difftest-${type}-${environment}-${Date.now()}`, type, environment, projects }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`${base}: creating a ${type} token answered ${res.status} ${text}`);
  return (JSON.parse(text) as { secret: string }).secret;
}

export function createFrontendToken(base: string, adminToken: string, environment: string, projects: string[]): Promise<string> {
  return createToken(base, adminToken, 'frontend', environment, projects);
}

/** The frontend API's answer to one request, as text. */
export async function askFrontend(base: string, token: string, request: FrontendRequest): Promise<{ status: number; body: string }> {
  const res = request.method === 'POST'
    ? await fetch(`${base}/api/frontend`, {
        method: 'POST',
        headers: { authorization: token, 'content-type': 'application/json' },
        body: JSON.stringify({ context: request.context }),
      })
    : await fetch(`${base}/api/frontend${request.query === '' ? '' : `?${request.query}`}`, { headers: { authorization: token } });
  return { status: res.status, body: await res.text() };
}

/** A context as a frontend GET query: top-level scalars as `k=v`, properties as `properties[k]=v`. */
export function frontendQuery(context: Record<string, unknown>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(context)) {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) if (isScalar(inner)) query.append(`properties[${name}]`, String(inner));
    } else if (isScalar(value)) {
      query.append(key, String(value));
    }
  }
  return query.toString();
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Per flag name, one answer as comparable text (absent: the surface does not list the flag). */
export type Answers = Map<string, string>;

/** The frontend API's toggles by name; a failed request is one `<status>` entry. */
export function frontendAnswers({ status, body }: { status: number; body: string }): Answers {
  if (status !== 200) return new Map([['<status>', `${status}`]]);
  const toggles = (JSON.parse(body) as { toggles: Array<{ name: string }> }).toggles;
  return new Map(toggles.map((toggle) => [toggle.name, JSON.stringify(toggle)]));
}

export interface Comparison {
  /** Flags compared (both servers constant over every ask). */
  compared: number;
  /** Flags whose answer changed between asks of one server: random, not compared. */
  random: string[];
  differences: Array<{ flag: string; peer: string | undefined; vane: string | undefined }>;
}

/**
 * Asks both servers the same question twice and compares the answers flag by flag. A flag whose
 * answer changes between two asks of one server is random (a variant sticky on a missing field,
 * `random` stickiness, the random sessionId the frontend API gives a context without one). A flag
 * that differs between the servers while constant on each is asked `more` times again before it
 * counts as a difference, so that a random answer that happened to repeat is not reported as one.
 * For the Vane-only surfaces (vane-run.ts) `peer` is Vane's own reference answer (the advanced
 * playground, the preview, the frontend API) and `same` may accept more than equal text.
 */
export async function compareAnswers(
  ask: (side: 'vane' | 'peer') => Promise<Answers>,
  flags: readonly string[],
  { more = 6, same = (peer: string | undefined, vane: string | undefined) => peer === vane } = {},
): Promise<Comparison> {
  const seen = { vane: [] as Answers[], peer: [] as Answers[] };
  const round = async () => {
    const [vane, peer] = await Promise.all([ask('vane'), ask('peer')]);
    seen.vane.push(vane);
    seen.peer.push(peer);
  };
  await round();
  await round();
  const names = [...new Set([...flags, ...seen.peer[0]!.keys(), ...seen.vane[0]!.keys()])];
  const varies = (answers: Answers[], name: string) => answers.some((a) => a.get(name) !== answers[0]!.get(name));
  const differing = () => names.filter((name) => !varies(seen.vane, name) && !varies(seen.peer, name) && !same(seen.peer[0]!.get(name), seen.vane[0]!.get(name)));
  if (differing().length > 0) for (let i = 0; i < more; i++) await round();
  const random = names.filter((name) => varies(seen.vane, name) || varies(seen.peer, name));
  const differences = differing().map((flag) => ({ flag, peer: seen.peer[0]!.get(flag), vane: seen.vane[0]!.get(flag) }));
  return { compared: names.length - random.length, random, differences };
}

/** One HTTP request with an `authorization` header and an optional JSON body; the answer as text. */
export async function send(
  base: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: token, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

export interface SurfaceSummary {
  /** Questions asked (a context, in one environment or against one change request). */
  questions: number;
  /** Answers compared (not random). */
  compared: number;
  random: number;
  /** Answers that differ. */
  differing: number;
  /** Questions with at least one differing answer. */
  differingQuestions: number;
}

export interface SurfaceFinding {
  case: number;
  environment: string;
  surface: string;
  context: Record<string, unknown>;
  differences: Comparison['differences'];
}

/** Per surface, the totals of its comparisons and the questions that differ. */
export class Tally {
  readonly summary: Map<string, SurfaceSummary>;
  readonly findings: SurfaceFinding[] = [];

  constructor(surfaces: readonly string[]) {
    this.summary = new Map(surfaces.map((s) => [s, { questions: 0, compared: 0, random: 0, differing: 0, differingQuestions: 0 }]));
  }

  add(finding: Omit<SurfaceFinding, 'differences'>, result: Comparison): void {
    const totals = this.summary.get(finding.surface);
    if (totals === undefined) return;
    totals.questions++;
    totals.compared += result.compared;
    totals.random += result.random.length;
    totals.differing += result.differences.length;
    if (result.differences.length === 0) return;
    totals.differingQuestions++;
    this.findings.push({ ...finding, differences: result.differences });
  }

  /** One line per surface, then the most frequent differing (surface, answer) pairs with an example. */
  print(): void {
    for (const [surface, s] of this.summary) {
      console.log(`  ${surface.padEnd(17)} ${String(s.questions).padStart(4)} questions, ${String(s.compared).padStart(6)} answers compared, ${String(s.random).padStart(5)} random, ${String(s.differing).padStart(4)} differ (in ${s.differingQuestions} questions)`);
    }
    const byKind = new Map<string, { count: number; example: SurfaceFinding }>();
    for (const finding of this.findings) {
      for (const difference of finding.differences) {
        const kind = `${finding.surface} ${difference.flag}`;
        const entry = byKind.get(kind);
        if (entry) entry.count++;
        else byKind.set(kind, { count: 1, example: finding });
      }
    }
    for (const [kind, { count, example }] of [...byKind].sort((a, b) => b[1].count - a[1].count).slice(0, 30)) {
      const difference = example.differences.find((d) => `${example.surface} ${d.flag}` === kind)!;
      console.log(`  ${String(count).padStart(5)}  ${kind}: e.g. case ${example.case} ${example.environment} expected ${difference.peer?.slice(0, 200)} got ${difference.vane?.slice(0, 200)}`);
    }
  }
}
