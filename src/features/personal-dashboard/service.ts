import { notFound } from '../../errors.js';
import { isMarked } from '../favorites/read-model.js';
import type { FlagData } from '../flags/read-model.js';
import { gravatarUrl } from '../shared.js';
import type { DashboardPerson, DashboardSources } from './sources.js';

/** The dashboard lists at most 100 flags (Unleash 8.2). */
const PERSONAL_FLAGS = 100;

/** The project page of the dashboard shows the last 10 events (Unleash 8.2). */
const LATEST_EVENTS = 10;

/** As Unleash lists an admin: the name they sign in with, and the gravatar of their e-mail (else that name). */
function personView(person: DashboardPerson) {
  const username = person.username ?? person.email ?? person.name ?? String(person.id);
  return { id: person.id, username, imageUrl: gravatarUrl(person.email ?? username) };
}

/**
 * The signed-in person's dashboard (`/personal`). Unleash lists the projects a person is a member
 * of; Vane has no project membership (every project is open to every root role, as in Unleash
 * OSS's default project), so it lists every project. Project owners and roles are empty for the
 * same reason.
 */
export class PersonalDashboardService {
  constructor(private readonly sources: DashboardSources) {}

  async forPerson(userId: number) {
    const [projects, flags, admins] = await Promise.all([this.sources.projects(), this.sources.flags(), this.sources.admins()]);
    const projectViews = [];
    for (const project of projects) {
      const { health } = await this.sources.overview(project.id);
      projectViews.push({
        id: project.id, name: project.name, health, technicalDebt: 100 - health, memberCount: 0,
        featureCount: flags.filter((f) => f.project === project.id).length,
      });
    }
    return {
      projects: projectViews,
      flags: this.personalFlags(flags, userId),
      projectOwners: [],
      admins: admins.map(personView),
    };
  }

  /** The live flags the person created or marked, newest first, at most 100 (Unleash 8.2's read model). */
  private personalFlags(flags: readonly FlagData[], userId: number) {
    const marks = this.sources.favorites.marksOf(userId).flags;
    return flags
      .filter((f) => f.createdBy.id === userId || isMarked(marks, f.name, f.createdAt))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, PERSONAL_FLAGS)
      .map((f) => ({ name: f.name, type: f.type, project: f.project }));
  }

  async forProject(projectId: string) {
    if (!(await this.sources.projects()).some((p) => p.id === projectId)) throw notFound(`No project with id "${projectId}" exists.`);
    const overview = await this.sources.overview(projectId);
    const flags = (await this.sources.flags()).filter((f) => f.project === projectId);
    const stale = flags.filter((f) => f.stale).length;
    const staleOrPotentially = await this.sources.staleCount(projectId);
    const events = await this.sources.latestEvents(projectId, LATEST_EVENTS);
    return {
      latestEvents: events.map((e) => ({
        createdAt: e.createdAt, summary: e.summary, createdBy: e.createdBy, id: e.id, createdByImageUrl: gravatarUrl(e.createdBy),
      })),
      onboardingStatus: overview.onboardingStatus,
      owners: [{ ownerType: 'system' }],
      roles: [],
      insights: {
        avgHealthCurrentWindow: null,
        avgHealthPastWindow: null,
        totalFlags: flags.length,
        potentiallyStaleFlags: staleOrPotentially - stale,
        staleFlags: stale,
        activeFlags: flags.length - staleOrPotentially,
        technicalDebt: 100 - overview.health,
        health: overview.health,
      },
    };
  }
}
