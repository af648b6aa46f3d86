// Package turbo is the client of a server of turbo's remote cache API
// (Vercel's, ducktors/turborepo-remote-cache and the like) behind vx's
// remote-cache helper, cmd/vx-remote: GET, PUT and HEAD of
// /v8/artifacts/{hash} and GET /v8/artifacts/status under the configured
// URL's path, with the team in the query (teamId=team_..., slug=...) and a
// bearer token. It links net/http and so must never be imported by vx
// itself: vx reaches it over a pipe (package remote), as the REAPI client.
//
// The server is storage only. vx keeps its own entry there: one artifact
// per action, named by a hash derived from the action's digest, holding
// the action digest, the serialized REAPI ActionResult and every blob the
// result names, gzip-compressed (see [artifact]). It serves
// [wire.Backend]'s REAPI-shaped calls over that: a lookup downloads the
// artifact, checks it and keeps its blobs in a spool directory of the
// helper for the ReadBlob calls that follow; an upload records where the
// blobs are in vx's store (UploadBlobs sends nothing) and the result's
// update packs them into one artifact and PUTs it.
//
// With a signing key, every artifact carries the x-artifact-tag header,
// made exactly as turbo (2.11) makes it (see [Tag]): base64 of an
// HMAC-SHA256 over "artifact-signature:v2", the artifact's hash, the team
// id ("" for a slug alone) and the body, each preceded by its length. A
// downloaded artifact whose tag is absent or wrong is a miss
// (wire.CodeBadSignature); its content is not handed out. The tag covers
// the artifact's name and team id and the artifact holds the action
// digest, which is checked, so a signed entry copied under another name or
// team id does not verify; turbo's tag does not cover a slug, so an entry
// copied to another slug by someone without the key still verifies when
// both teams sign with one key (it is still that action's result).
//
// Bounds: an artifact is at most [MaxArtifact] bytes as sent and as
// unpacked, a result at most wire.MaxPayload; a body that ends early,
// holds more than its result names, or whose blobs do not match their
// digests is refused whole.
package turbo
