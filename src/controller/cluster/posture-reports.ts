import {
  type ApiSessionPosture,
  emptyPosture,
  type FailedServiceRequest,
  type PostureData,
  type PostureReports,
  type ProcessReport,
  withFailure,
} from '../client-state.js';
import type { PostureReportRows } from '../store/posture-reports.js';
import type { Store } from '../store/store.js';

/**
 * The posture reports of controllers sharing a database, kept there (Store.postureReports): an identity may report
 * to one controller and create its sessions through another, which must evaluate what it reported. Each change is
 * a read and a write of the identity's row in one transaction holding the `posture-reports` lock for that identity,
 * so reports of one identity made on two controllers at once are both kept, and other identities' never wait.
 */
export class SharedPostureReports implements PostureReports {
  private readonly rows: PostureReportRows;

  constructor(private readonly store: Store) {
    this.rows = store.postureReports;
  }

  async read(identityId: string): Promise<PostureData | undefined> {
    const row = await this.rows.read(identityId);
    return row && postureFromJson(row.data);
  }

  update(identityId: string, change: (data: PostureData) => void): Promise<PostureData> {
    return this.store.tx(async () => {
      await this.store.hold('posture-reports', identityId);
      const row = await this.rows.read(identityId);
      const data = row ? postureFromJson(row.data) : emptyPosture();
      change(data);
      await this.rows.write(identityId, { data: postureToJson(data), failures: row?.failures ?? '[]' }, new Date());
      return data;
    });
  }

  recordFailure(identityId: string, failure: FailedServiceRequest): Promise<void> {
    return this.store.tx(async () => {
      await this.store.hold('posture-reports', identityId);
      const row = await this.rows.read(identityId);
      const failures = withFailure(row ? JSON.parse(row.failures) : [], failure);
      const data = row?.data ?? postureToJson(emptyPosture());
      await this.rows.write(identityId, { data, failures: JSON.stringify(failures) }, new Date());
    });
  }

  async failuresOf(identityId: string): Promise<readonly FailedServiceRequest[]> {
    const row = await this.rows.read(identityId);
    return row ? JSON.parse(row.failures) : [];
  }

  async forgetIdentity(identityId: string): Promise<void> {
    await this.rows.forget(identityId);
  }
}

/** PostureData as JSON: its maps as entry lists, its times as ISO strings (as JSON.stringify writes a Date). */
export function postureToJson(data: PostureData): string {
  return JSON.stringify({
    ...data,
    processes: [...data.processes],
    processesByPath: [...data.processesByPath],
    apiSessions: [...data.apiSessions],
  });
}

/** A JSON object whose times are ISO strings. */
type Parsed = Record<string, unknown>;

export function postureFromJson(text: string): PostureData {
  const json = JSON.parse(text) as Parsed;
  const date = (iso: unknown) => (typeof iso === 'string' ? new Date(iso) : undefined);
  const reported = <T>(r: unknown): T | undefined =>
    r ? ({ ...(r as Parsed), lastUpdatedAt: date((r as Parsed).lastUpdatedAt) } as T) : undefined;
  const session = (s: Parsed): ApiSessionPosture => ({
    mfaPassedAt: date(s.mfaPassedAt),
    wokenAt: date(s.wokenAt),
    unlockedAt: date(s.unlockedAt),
  });
  const processes = (entries: unknown) =>
    new Map((entries as Array<[string, Parsed]>).map(([key, p]) => [key, reported<ProcessReport>(p)!]));
  return {
    os: reported(json.os),
    mac: reported(json.mac),
    domain: reported(json.domain),
    processes: processes(json.processes),
    processesByPath: processes(json.processesByPath),
    apiSessions: new Map((json.apiSessions as Array<[string, Parsed]>).map(([id, s]) => [id, session(s)])),
  };
}
