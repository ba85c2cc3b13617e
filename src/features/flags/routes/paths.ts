/** Where a project's flags and one flag environment are addressed. */
export const BASE = '/api/admin/projects/:projectId/features';
export const ENV = `${BASE}/:featureName/environments/:environment`;
