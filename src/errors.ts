import { randomUUID } from 'node:crypto';

/**
 * The one error catalogue. Every error Vane answers with is an ApiError subclass defined here, with
 * its name and status; the error plugin serialises them all the same way:
 * `{id, name, message, details, ...extras}` (docs/rules.md §2.3, with D1's names).
 */
export interface ErrorDetail {
  message: string;
  path?: string;
  [key: string]: unknown;
}

/** The body of every error answer (src/schemas/common.ts ErrorSchema describes it for the serializer). */
export interface ErrorBody {
  id: string;
  name: string;
  message: string;
  details: ErrorDetail[];
  [extra: string]: unknown;
}

export class ApiError extends Error {
  readonly statusCode: number;
  readonly details: ErrorDetail[];
  /** Keys some errors add after `details` (NoAccessError's `permissions`, the login 401's `path`…). */
  readonly extras: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    name: string,
    statusCode: number,
    message: string,
    options: { details?: ErrorDetail[]; extras?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = name;
    this.statusCode = statusCode;
    this.details = options.details ?? [{ message }];
    this.extras = options.extras ?? {};
    this.headers = options.headers ?? {};
  }

  toJSON(): ErrorBody {
    return { id: randomUUID(), name: this.name, message: this.message, details: this.details, ...this.extras };
  }
}

const SCHEMA_MESSAGE =
  'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.';

/** 400 from schema validation: one detail per validator error (docs/rules.md §1.3). */
export function schemaValidationError(details: ErrorDetail[]): ApiError {
  return new ApiError('ValidationError', 400, SCHEMA_MESSAGE, { details });
}

/** 400 from a handler-level rule: the reason appears in the message and alone in `details`. */
export function validationError(reason: string): ApiError {
  return new ApiError('ValidationError', 400, `Request validation failed: your request body or params contain invalid data: ${reason}`, {
    details: [{ message: reason }],
  });
}

/** Unleash's message where its validation error carries no text of its own (an addon's provider rules). */
const UNNAMED_REASON = 'A validation error occurred while processing your request data. Please make sure it conforms to the request data schema.';

/**
 * 400 with Unleash's message for a validation error whose text it drops (`UNNAMED_REASON`), and
 * the reason in `details` (docs/rules.md D20: Unleash repeats its message there).
 */
export function unnamedValidationError(reason: string): ApiError {
  return new ApiError('ValidationError', 400, `Request validation failed: your request body or params contain invalid data: ${UNNAMED_REASON}`, {
    details: [{ message: reason }],
  });
}

/** 400 whose message is exactly the reason (name rules of flag creation, segments, tags…). */
export function badRequest(message: string, name = 'ValidationError'): ApiError {
  return new ApiError(name, 400, message);
}

export function malformedJson(parserMessage: string): ApiError {
  return new ApiError('ValidationError', 400, parserMessage);
}

const LOGIN_MESSAGE =
  'You must log in to use Unleash. Your request had no authorization header, so we could not authorize you. Try logging in at /auth/simple/login';

export function authenticationRequired(): ApiError {
  return new ApiError('AuthenticationRequired', 401, LOGIN_MESSAGE, {
    extras: { path: '/auth/simple/login', type: 'password', defaultHidden: false },
  });
}

export function unauthorized(): ApiError {
  return new ApiError('UnauthorizedError', 401, 'You must log in to use Unleash.');
}

/** 401 of the SDK routes (client and frontend API), missing or unknown token alike. */
export function apiTokenRequired(): ApiError {
  return new ApiError(
    'UnauthorizedError', 401,
    'This endpoint requires an API token. Please add an authorization header to your request with a valid token',
  );
}

export function wrongTokenType(): ApiError {
  return new ApiError('NoAccessError', 403, 'invalid token: expected a different token type for this endpoint');
}

export function noAccess(permissions: string[], environment?: string): ApiError {
  const which =
    permissions.length === 1
      ? `the "${permissions[0]}" permission`
      : `one of the following permissions: ${permissions.map((p) => `"${p}"`).join(', ')}`;
  const where = environment ? ` in the "${environment}" environment.` : '.';
  const message = `You don't have the required permissions to perform this operation. To perform this action, you need ${which}${where}`;
  return new ApiError('NoAccessError', 403, message, { extras: { permissions } });
}

export function invalidOperation(message: string): ApiError {
  return new ApiError('InvalidOperationError', 403, message);
}

export function notFound(message = 'The requested resource could not be found'): ApiError {
  return new ApiError('NotFoundError', 404, message);
}

export function routeNotFound(path: string): ApiError {
  return notFound(`The path you were looking for (${path}) is not available.`);
}

export function nameExists(message: string): ApiError {
  return new ApiError('NameExistsError', 409, message);
}

export function conflict(message: string): ApiError {
  return new ApiError('ConflictError', 409, message);
}

export function contentType(header: string | undefined): ApiError {
  return new ApiError(
    'ContentTypeError',
    415,
    `We do not accept the content-type you provided (${header || "you didn't provide one"}). Try using one of the content-types we do accept instead (application/json) and make sure the body is in the corresponding format.`,
  );
}

export function archivedFeature(): ApiError {
  return new ApiError('ArchivedFeatureError', 400, 'Cannot perform this operation on archived features');
}

export function exceedsLimit(resource: string, limit: number): ApiError {
  return new ApiError(
    'ExceedsLimitError',
    400,
    `Failed to create ${resource}. You can't create more than the established limit of ${limit}.`,
  );
}

export function payloadTooLarge(limit: number): ApiError {
  return new ApiError('ContentTooLargeError', 413, `Request body is larger than the ${limit} bytes allowed.`);
}

export function serviceUnavailable(message = 'The database is not reachable right now. Try again shortly.', retryAfterSeconds = 1): ApiError {
  return new ApiError('ServiceUnavailable', 503, message, { headers: { 'retry-after': String(retryAfterSeconds) } });
}

/** 503 of an admin write while maintenance mode is on (Unleash's body is only this message: D1 adds the rest). */
export function maintenanceMode(): ApiError {
  return new ApiError('MaintenanceModeError', 503, 'Unleash is currently in maintenance mode.');
}

/**
 * 401 of a signed Edge request Unleash does not accept. Unleash's body is `{error: reason}`: the
 * reason is the message and stays under `error` too, where Edge reads it.
 */
export function edgeUnauthorized(reason: string): ApiError {
  return new ApiError('UnauthorizedError', 401, reason, { extras: { error: reason } });
}

export function unknownError(): ApiError {
  return new ApiError('UnknownError', 500, 'Unexpected error: the server could not complete the request. It has been logged.');
}

export function passwordMismatch(): ApiError {
  return new ApiError('PasswordMismatch', 401, 'The combination of username and password you provided is invalid. Check both and try again, or ask your instance administrator for help.');
}

/** A password change whose old password is wrong (Unleash's text, test/fixtures/users/change-password.json). */
export function oldPasswordMismatch(): ApiError {
  return new ApiError(
    'PasswordMismatch', 401,
    'The old password you provided is invalid. If you have forgotten your password, visit /forgotten-password or get in touch with your instance administrator.',
  );
}

/** A new password among the user's last ones (the current one included). */
export function passwordPreviouslyUsed(): ApiError {
  return new ApiError('PasswordPreviouslyUsedError', 400, "You've previously used this password. Please use a new password.");
}

/** A password too weak for the OWASP test: the first problem as the message, all of them in the detail. */
export function weakPassword(problems: string[]): ApiError {
  const message = problems[0] ?? 'The password is too weak.';
  return new ApiError('OwaspValidationError', 400, message, { details: [{ validationErrors: problems, message }] });
}

/** A password that is empty (Unleash's PasswordUndefinedError, with its empty list of problems). */
export function passwordUndefined(): ApiError {
  const message = 'Password cannot be empty or undefined';
  return new ApiError('PasswordUndefinedError', 400, message, { details: [{ validationErrors: [], message }] });
}

/** A reset or welcome link whose token is unknown, expired or spent. */
export function invalidToken(): ApiError {
  return new ApiError('InvalidTokenError', 401, 'Token was not valid');
}

/** A second reset link for the same person within a minute. */
export function resetRateLimited(): ApiError {
  return new ApiError('RateLimitError', 429, 'You can only send one new reset password email per minute, per user. Please try again later.');
}

/** 403 for an operation the caller's kind of credential cannot do (a PAT route called with an API token). */
export function forbidden(message: string): ApiError {
  return new ApiError('ForbiddenError', 403, message);
}

/** 403 for an operation refused by a limit (Unleash's OperationDeniedError). */
export function operationDenied(message: string): ApiError {
  return new ApiError('OperationDeniedError', 403, message);
}

export function sessionExpired(): ApiError {
  return new ApiError('UnauthorizedError', 401, 'Your session has expired or ended. Sign in again at /login.');
}

/** A cookie-authenticated change whose Origin (or Referer) is not this server's (cross-site request forgery). */
export function crossSiteRequest(origin: string): ApiError {
  return new ApiError(
    'CrossSiteRequestError',
    403,
    `This request was refused: it carries your session cookie but comes from ${origin ? `another site (${origin})` : 'an unknown origin (no Origin or Referer header)'}. Send it from this server's pages, or authenticate with an API token.`,
  );
}

/** What a callback-style hook passes to `done`: a thrown value as an Error. */
export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * OFREP's error codes (OpenFeature Remote Evaluation Protocol 0.3, docs/rules.md §10.6). Its errors
 * have their own body, `{key?, errorCode, errorDetails}`, written by the OFREP plugin's error
 * handler (src/features/ofrep/routes.ts), which also turns every ApiError raised on its routes
 * (a malformed body, a wrong content type, a start-up 503) into that shape.
 */
export type OfrepErrorCode = 'FLAG_NOT_FOUND' | 'PARSE_ERROR' | 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT' | 'GENERAL';

export class OfrepError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorCode: OfrepErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /** The flag the single-flag evaluation asked for (absent on the bulk endpoint). */
    readonly key?: string,
  ) {
    super(message);
    this.name = 'OfrepError';
  }
}

export function ofrepFlagNotFound(key: string): OfrepError {
  return new OfrepError(404, 'FLAG_NOT_FOUND', `Flag '${key}' was not found: it does not exist, is archived, or is outside the token's projects`, {}, key);
}

/** 401: no credential, or one that is not a live token (unknown, revoked, expired). */
export function ofrepUnauthorized(reason: string): OfrepError {
  return new OfrepError(401, 'GENERAL', reason);
}

/** 403: an admin token (OFREP takes the tokens an SDK may hold: frontend, client and backend). */
export function ofrepForbidden(): OfrepError {
  return new OfrepError(403, 'GENERAL', 'Admin tokens cannot evaluate flags over OFREP: use a frontend or client token');
}

export function ofrepRateLimited(max: number, retryAfterSeconds: number): OfrepError {
  return new OfrepError(429, 'GENERAL', `Too many evaluations with this token from your address: at most ${max} per minute. Try again in ${retryAfterSeconds} s.`, {
    'retry-after': String(retryAfterSeconds),
  });
}
