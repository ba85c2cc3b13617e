import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { ApiError } from '../../errors.js';

/**
 * A per-address, per-minute limit as a `preValidation` hook: it counts only requests whose body
 * parsed, so malformed input answers 400 without spending the sender's allowance.
 */
export async function perAddressLimit(
  app: FastifyInstance, max: number, message: (seconds: number) => string,
): Promise<(request: FastifyRequest) => Promise<void>> {
  if (!app.hasDecorator('createRateLimit')) await app.register(rateLimit, { global: false });
  const limiter = app.createRateLimit({ max, timeWindow: 60_000 });
  return async (request) => {
    const result = await limiter(request);
    if (!result.isAllowed && result.isExceeded) {
      throw new ApiError('TooManyRequestsError', 429, message(result.ttlInSeconds), {
        headers: { 'retry-after': String(result.ttlInSeconds) },
      });
    }
  };
}
