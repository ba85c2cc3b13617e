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
