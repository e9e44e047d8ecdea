import { apiSession } from './api-session.js';
import { authPolicy } from './auth-policy.js';
import { authenticator } from './authenticator.js';
import { apiSessionCertificate } from './api-session-certificate.js';
import { ca } from './ca.js';
import { configType } from './config-type.js';
import { edgeRouterPolicy } from './edge-router-policy.js';
import { edgeRouter } from './edge-router.js';
import { config } from './config.js';
import { enrollment } from './enrollment.js';
import { externalJwtSigner } from './external-jwt-signer.js';
import { identityServiceConfig } from './identity-service-config.js';
import { identityType } from './identity-type.js';
import { identity } from './identity.js';
import { mfa } from './mfa.js';
import { postureCheckType } from './posture-check-type.js';
import { postureCheck } from './posture-check.js';
import { router } from './router.js';
import { serviceEdgeRouterPolicy } from './service-edge-router-policy.js';
import { servicePolicy } from './service-policy.js';
import { service } from './service.js';
import { session } from './session.js';
import { controller } from './controller.js';
import { controllerPki } from './controller-pki.js';
import { loginAttempt } from './login-attempt.js';
import { postureReport } from './posture-report.js';
import { serviceUpdateStamp } from './service-update-stamp.js';
import { terminator } from './terminator.js';
import type { ResourceDef } from './types.js';

/** Every resource of the catalogue, in the order help and the served spec list them. */
export const CATALOGUE: readonly ResourceDef[] = [
  identity,
  authenticator,
  enrollment,
  authPolicy,
  identityType,
  apiSession,
  configType,
  config,
  service,
  edgeRouter,
  postureCheckType,
  postureCheck,
  servicePolicy,
  edgeRouterPolicy,
  serviceEdgeRouterPolicy,
  session,
  controller,
  identityServiceConfig,
  router,
  terminator,
  ca,
  externalJwtSigner,
  mfa,
  apiSessionCertificate,
  controllerPki,
  loginAttempt,
  serviceUpdateStamp,
  postureReport,
];

const byName = new Map(CATALOGUE.map((r) => [r.name, r]));

export function resource(name: string): ResourceDef {
  const def = byName.get(name);
  if (!def) throw new Error(`unknown resource '${name}' in the catalogue`);
  return def;
}

export type {
  ResourceDef,
  FieldDef,
  FieldType,
  ColumnDef,
  CliDef,
  RelationDef,
  Operation,
  Presence,
  OnDelete,
} from './types.js';
