/** Export and import of flags between instances (`/api/admin/features-batch`), as Unleash 8.2 answers them. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { schemaValidationError, validationError } from '../../errors.js';
import { ADMIN_ERRORS, NoBody, errorResponses } from '../../schemas/common.js';
import { ANY_ROLE, auditOf } from '../shared.js';
import { roleHolds } from '../sessions/roles.js';
import type { ExportService } from './export.js';
import type { Holds, ImportService } from './import.js';
import { ExportQueryBody, ExportResponse, ImportBody, ValidateResponse } from './schemas.js';

const TAGS = ['Import/Export'];
const BASE = '/api/admin/features-batch';

/**
 * Unleash's routes ask no permission (`NONE`): the import checks what the file needs against the
 * caller itself (an admin token holds everything, a person their root role's permissions).
 */
function holdsOf(request: FastifyRequest): Holds {
  const principal = request.principal;
  if (principal?.kind === 'admin-token') return () => true;
  if (principal?.kind === 'session') return (permission) => roleHolds(principal.user.rootRole, permission);
  return () => false;
}

const ADMIN_TOKEN_REFUSED = 'You can\'t use an admin token to import features. Please use either a personal access token '
  + '(https://docs.getunleash.io/concepts/api-tokens-and-client-keys#personal-access-tokens) or a service account '
  + '(https://docs.getunleash.io/concepts/service-accounts).';

interface ImportExportOptions { exporter: ExportService; importer: ImportService }

const importExportRoutes: FastifyPluginAsyncTypebox<ImportExportOptions> = async (app, { exporter, importer }) => {
  app.post(`${BASE}/export`, {
    config: { permission: ANY_ROLE },
    schema: {
      tags: TAGS, summary: 'Export flags from an environment: by name, by tag value, by project, or every live flag',
      body: ExportQueryBody,
      response: { 200: ExportResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => {
    const { body } = request;
    if (body.features === undefined && body.tag === undefined && body.project === undefined) {
      // Unleash's anyOf of three bodies, each failing on its own key (measured).
      throw schemaValidationError([
        ...['features', 'tag', 'project'].map((key) => ({
          path: `/body/${key}`, message: `The \`/body/${key}\` property is required. It was not present on the data you sent.`,
        })),
        { message: `The \`/body\` property must match a schema in anyOf. You sent ${JSON.stringify(body)}.`, path: '/body' },
      ]);
    }
    return await exporter.export(body, auditOf(request), request.ip);
  });

  app.post(`${BASE}/validate`, {
    config: { permission: ANY_ROLE },
    schema: {
      tags: TAGS, summary: 'What importing the data into a project and environment would meet: errors, warnings, missing permissions',
      body: ImportBody,
      response: { 200: ValidateResponse, ...errorResponses(...ADMIN_ERRORS, 404) },
    },
  }, async (request) => await importer.validate(request.body, holdsOf(request)));

  app.post(`${BASE}/import`, {
    config: { permission: ANY_ROLE },
    schema: {
      tags: TAGS, summary: 'Import flags into a project and environment, all of it or nothing (a person or personal access token only)',
      body: ImportBody,
      response: { 200: NoBody, ...errorResponses(...ADMIN_ERRORS, 404, 409) },
    },
  }, async (request, reply) => {
    if (request.principal?.kind === 'admin-token') throw validationError(ADMIN_TOKEN_REFUSED);
    await importer.import(request.body, holdsOf(request), auditOf(request));
    return reply.code(200).send(undefined);
  });
};

export default importExportRoutes;
