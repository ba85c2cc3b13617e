import t from 'tap';
import { permissionsOf, requiredPermission, roleHolds } from '../../../src/features/sessions/roles.js';

t.test('the permission a route needs from a session user', async (t) => {
  t.equal(requiredPermission('GET', '/api/admin/projects', undefined), undefined, 'reads: anyone signed in');
  t.equal(requiredPermission('POST', '/api/admin/playground/advanced', undefined), undefined, 'playground: anyone signed in');
  t.equal(requiredPermission('POST', '/api/admin/playground/change-request/:id', undefined), undefined, 'preview: anyone signed in');
  t.equal(requiredPermission('POST', '/api/admin/something-new', undefined), 'ADMIN', 'an undeclared change is Admin-only');
  t.equal(requiredPermission('DELETE', '/api/admin/segments/:id', 'DELETE_SEGMENT'), 'DELETE_SEGMENT');
});

t.test('what each root role holds', async (t) => {
  for (const permission of ['ADMIN', 'CREATE_API_TOKEN', 'CREATE_FEATURE', 'UNKNOWN_NEW_PERMISSION']) t.ok(roleHolds(1, permission), `Admin: ${permission}`);
  for (const permission of ['CREATE_FEATURE', 'UPDATE_FEATURE_STRATEGY', 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS', 'CREATE_SEGMENT', 'APPROVE_CHANGE_REQUEST']) {
    t.ok(roleHolds(2, permission), `Editor: ${permission}`);
    t.notOk(roleHolds(3, permission), `Viewer: not ${permission}`);
  }
  for (const permission of ['ADMIN', 'CREATE_API_TOKEN', 'READ_API_TOKEN', 'UPDATE_CORS', 'UNKNOWN_NEW_PERMISSION']) {
    t.notOk(roleHolds(2, permission), `Editor: not ${permission}`);
  }
  for (const permission of ['READ_FEATURE', 'READ_APPLICATION']) t.ok(roleHolds(3, permission), `Viewer: ${permission}`);
  t.notOk(roleHolds(3, 'READ_API_TOKEN'), 'API tokens are secrets: not for Viewers');
  t.same(permissionsOf(1), ['ADMIN']);
  t.same(permissionsOf(3), []);
  t.ok(permissionsOf(2).includes('CREATE_FEATURE'));
});
