import { policyModel } from '../policy-roles.js';

export const model = policyModel('service-policy');
