import { ref, type Responses, type Success } from '../../server/responses.js';

/** What an enrollment that issues certificates answers (identities, routers, a router's extension). */
export function certificatesAnswer(r: Responses, description: string): Success {
  return r.data('enrollmentCertsEnvelope', description, ref('enrollmentCerts'));
}
