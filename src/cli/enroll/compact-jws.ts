/** A compact JWS: three base64url parts, the first a JSON object (so it starts `eyJ`, the encoding of `{"`). */
export const COMPACT_JWS = /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
