/**
 * The change-request preview (E3): the advanced playground over the current configuration with a
 * request's changes applied in memory, for the request's project and environment. The change
 * request service simulates the changes (`preview`); the playground evaluates them, laying them
 * over its snapshot once per changes key on each thread and on the main thread.
 */
import type { Readable } from 'node:stream';
import type { BufferedAnswer, PlaygroundService } from '../playground/service.js';
import type { ChangeRequestService } from './service.js';

export class ChangeRequestPreview {
  constructor(
    private readonly changeRequests: ChangeRequestService,
    private readonly playground: PlaygroundService,
  ) {}

  async advanced(id: string, context: Record<string, unknown>, signal: AbortSignal): Promise<BufferedAnswer | Readable> {
    const { cr, changes, changesKey } = await this.changeRequests.preview(id);
    const input = { environments: [cr.environment], projects: [cr.project], context };
    return await this.playground.advanced({ ...input, inputJson: JSON.stringify(input), changes, changesKey }, signal);
  }
}
