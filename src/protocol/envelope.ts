/** Shapes of every JSON body on the wire (wire-protocol section 9). */

export interface Link {
  href: string;
  method?: string;
  comment?: string;
}
export type Links = Record<string, Link>;

export interface EntityRef {
  _links: Links;
  entity: string;
  id: string;
  name: string;
}

export interface Pagination {
  limit: number;
  offset: number;
  totalCount: number;
}

export interface ListMeta {
  pagination: Pagination;
  filterableFields: string[];
}

export interface Envelope<T> {
  data: T;
  meta: Record<string, unknown> | null;
}

export interface ListEnvelope<T> {
  data: T[];
  meta: ListMeta;
}

/** The version the controller reports in error envelopes (OpenZiti sends this constant). */
export const API_VERSION = '0.0.1';
export const API_ENROLLMENT_VERSION = '0.0.1';
export const ERROR_META = { apiEnrollmentVersion: API_ENROLLMENT_VERSION, apiVersion: API_VERSION } as const;

export const MANAGEMENT_BASE = '/edge/management/v1';
export const CLIENT_BASE = '/edge/client/v1';
/**
 * OpenZiti's fabric API: the routers and terminators its console reads (src/controller/routes/management/fabric.ts).
 */
export const FABRIC_BASE = '/fabric/v1';

/** Session token header (legacy OpenZiti scheme); `Authorization: Bearer` is accepted too. */
export const SESSION_HEADER = 'zt-session';
