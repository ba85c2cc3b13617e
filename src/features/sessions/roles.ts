/**
 * What each root role may do. Routes declare the permission they need
 * (`config: { permission }`, docs/rules.md §2.2); a session user holds the permissions of their root role.
 *
 * - Viewer (3): every read (routes without a permission, and READ_* ones except API tokens), and the playground endpoints (including the change-request preview),
 *   which are POSTs that change nothing.
 * - Editor (2): also flags, their strategies, variants, dependencies and tags, segments, projects, applications,
 *   context fields, strategy types, tag types, addons and change requests.
 * - Admin (1): everything, including API tokens, invite links, users, environments and strategy
 *   types. A permission this table does not know is Admin-only, so a new route is closed by default.
 */
import { ANY_ROLE } from '../shared.js';

export { ANY_ROLE };
export const ADMIN_ROLE_ID = 1;
export const EDITOR_ROLE_ID = 2;

/**
 * Unleash 8.2's Editor root role, as its database grants it (`role_permission` of role 2, read off
 * the reference), and Vane's change-request approval.
 */
const EDITOR_PERMISSIONS: ReadonlySet<string> = new Set([
  'CREATE_ADDON', 'CREATE_CONTEXT_FIELD', 'CREATE_FEATURE', 'CREATE_FEATURE_STRATEGY', 'CREATE_PROJECT',
  'CREATE_PROJECT_API_TOKEN', 'CREATE_SEGMENT', 'CREATE_STRATEGY', 'CREATE_TAG_TYPE',
  'DELETE_ADDON', 'DELETE_CONTEXT_FIELD', 'DELETE_FEATURE', 'DELETE_FEATURE_STRATEGY', 'DELETE_PROJECT',
  'DELETE_PROJECT_API_TOKEN', 'DELETE_SEGMENT', 'DELETE_STRATEGY', 'DELETE_TAG_TYPE', 'MOVE_FEATURE_TOGGLE',
  'READ_CLIENT_API_TOKEN', 'READ_FRONTEND_API_TOKEN', 'READ_PROJECT_API_TOKEN',
  'RELEASE_PLAN_TEMPLATE_CREATE', 'RELEASE_PLAN_TEMPLATE_UPDATE',
  'UPDATE_ADDON', 'UPDATE_APPLICATION', 'UPDATE_CONTEXT_FIELD', 'UPDATE_FEATURE', 'UPDATE_FEATURE_DEPENDENCY',
  'UPDATE_FEATURE_ENVIRONMENT', 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS', 'UPDATE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_VARIANTS', 'UPDATE_PROJECT', 'UPDATE_SEGMENT', 'UPDATE_STRATEGY', 'UPDATE_TAG_TYPE',
  'APPROVE_CHANGE_REQUEST', 'DELETE_APPLICATION',
]);

/** Mutating routes that declare no permission are Admin-only, except these read-only evaluations. */
const VIEWER_POST_PREFIX = '/api/admin/playground';
/** The signed-in person's own account (personal access tokens, password): every role manages its own. */
const SELF_PREFIX = '/api/admin/user/';
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The permission a route needs for a session user, or undefined when any signed-in user may call it. */
export function requiredPermission(method: string, routeUrl: string, declared: string | undefined): string | undefined {
  if (declared === ANY_ROLE) return undefined;
  if (declared) return declared;
  if (SAFE_METHODS.has(method) || routeUrl.startsWith(VIEWER_POST_PREFIX) || routeUrl.startsWith(SELF_PREFIX)) return undefined;
  return 'ADMIN';
}

/** Reads are for everyone signed in; API tokens are secrets, so reading them stays with Admins. */
function isViewerRead(permission: string): boolean {
  return permission.startsWith('READ_') && !permission.endsWith('API_TOKEN');
}

export function roleHolds(rootRole: number, permission: string): boolean {
  if (rootRole === ADMIN_ROLE_ID) return true;
  if (isViewerRead(permission)) return true;
  if (rootRole === EDITOR_ROLE_ID) return EDITOR_PERMISSIONS.has(permission);
  return false;
}

/** The permissions a role holds, as `GET /api/admin/user` lists them (for pages to show or hide actions). */
export function permissionsOf(rootRole: number): string[] {
  if (rootRole === ADMIN_ROLE_ID) return ['ADMIN'];
  if (rootRole === EDITOR_ROLE_ID) return [...EDITOR_PERMISSIONS];
  return [];
}
