import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { validationError } from '../../errors.js';
import { errorResponses } from '../../schemas/common.js';
import type { PersonalDashboardService } from './service.js';

const TAGS = ['Personal dashboard'];
const Nullable = <T extends ReturnType<typeof Type.Integer>>(schema: T) => Type.Union([schema, Type.Null()]);

const DashboardSchema = Type.Object({
  projects: Type.Array(Type.Object({
    id: Type.String(), name: Type.String(), health: Type.Integer(), technicalDebt: Type.Integer(),
    memberCount: Type.Integer(), featureCount: Type.Integer(),
  })),
  flags: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), project: Type.String() }), { description: 'Live flags the person created' }),
  projectOwners: Type.Array(Type.Object({})),
  admins: Type.Array(Type.Object({ id: Type.Integer(), username: Type.String(), imageUrl: Type.String() })),
});

const ProjectDashboardSchema = Type.Object({
  latestEvents: Type.Array(Type.Object({
    createdAt: Type.String({ format: 'date-time' }), summary: Type.Union([Type.String(), Type.Null()]), createdBy: Type.String(),
    id: Type.Integer(), createdByImageUrl: Type.String(),
  })),
  onboardingStatus: Type.Object({ status: Type.String(), feature: Type.Optional(Type.String()) }),
  owners: Type.Array(Type.Object({ ownerType: Type.String() })),
  roles: Type.Array(Type.Object({})),
  insights: Type.Object({
    avgHealthCurrentWindow: Nullable(Type.Integer()),
    avgHealthPastWindow: Nullable(Type.Integer()),
    totalFlags: Type.Integer(),
    potentiallyStaleFlags: Type.Integer(),
    staleFlags: Type.Integer(),
    activeFlags: Type.Integer(),
    technicalDebt: Type.Integer(),
    health: Type.Integer(),
  }),
});

const personalDashboardRoutes: FastifyPluginAsyncTypebox<{ service: PersonalDashboardService }> = async (app, { service }) => {
  app.get('/api/admin/personal-dashboard', {
    schema: {
      tags: TAGS, summary: 'The signed-in person\'s dashboard: projects with their health, the flags they created, the admins',
      response: { 200: DashboardSchema, ...errorResponses(400, 401, 403, 503) },
    },
  }, async (request) => {
    const principal = request.principal;
    // An API token is nobody's: Unleash fails here with a database error (500); Vane names why.
    if (principal?.kind !== 'session') throw validationError('User id is missing in request user object');
    return await service.forPerson(principal.user._id);
  });

  app.get('/api/admin/personal-dashboard/:projectId', {
    schema: {
      tags: TAGS, summary: 'One project on the dashboard: its latest events, onboarding, owners and health',
      params: Type.Object({ projectId: Type.String() }),
      response: { 200: ProjectDashboardSchema, ...errorResponses(401, 403, 404, 503) },
    },
  }, async (request) => await service.forProject(request.params.projectId));
};

export default personalDashboardRoutes;
