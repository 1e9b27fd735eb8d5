/**
 * The handlers of the public API: decode (done by the contract), authorize (middleware), call a
 * use-case, encode. Nothing else happens here.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { readFile, stat } from "node:fs/promises"
import { Effect, Layer, Schema } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Accounts, type Caller, Connect, Media, PostBatch, Posts, Profiles } from "@postwire/core"
import { Api, CurrentKey, Ids, Media as MediaWire, Post, PostwireError } from "@postwire/domain"
import { ServerConfig } from "../config/ServerConfig.ts"
import { withMetrics } from "./AnalyticsHandlers.ts"
import { respond } from "./Failures.ts"
import * as FastJson from "./FastJson.ts"
import { idempotent } from "./Idempotency.ts"
import { requestLocale } from "./Locale.ts"
import * as Views from "./Views.ts"

const caller: Effect.Effect<Caller, never, CurrentKey> = Effect.gen(function* () {
  const key = yield* CurrentKey
  return { workspaceId: key.workspaceId, keyId: key.keyId, kind: key.kind }
})

const headerKey = Effect.map(HttpServerRequest.HttpServerRequest, (r) => {
  const value = r.headers["idempotency-key"]
  return value === undefined || value === "" ? undefined : value
})

// The two reads clients poll: their bodies written by a compiled encoder (see FastJson.ts).
const postListBody = FastJson.responder(Post.PostList)
const postBody = FastJson.responder(Post.Post)

/** POST /v1/posts… */
export const PostsHandlers = HttpApiBuilder.group(Api, "posts", (handlers) =>
  handlers
    .handle("create", ({ payload, headers }) =>
      Effect.gen(function* () {
        const who = yield* caller
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(Effect.map(Posts.createPost(who, payload), (p) => Views.created(p, locale, publicUrl))).pipe(
          idempotent({
            key: headers["idempotency-key"],
            workspaceId: who.workspaceId,
            keyId: who.keyId,
            request: ["POST", "/v1/posts", payload],
            status: 201,
            schema: Post.CreatePostResponse
          })
        )
      })
    )
    .handle("createBatch", ({ payload, headers }) =>
      Effect.gen(function* () {
        const who = yield* caller
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        const created = Effect.map(PostBatch.createPostBatch(who, payload), (r) => Views.batch(r, locale, publicUrl))
        return yield* respond(created).pipe(
          idempotent({
            key: headers["idempotency-key"],
            workspaceId: who.workspaceId,
            keyId: who.keyId,
            request: ["POST", "/v1/posts/batch", payload],
            status: 200,
            schema: Post.CreatePostBatchResponse
          })
        )
      })
    )
    .handle("validate", ({ payload }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(Effect.map(Posts.validatePost(yield* caller, payload), (r) => Views.validation(r, locale, publicUrl)))
      })
    )
    .handle("list", ({ query }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return postListBody(Views.postList(yield* respond(Posts.listPosts(yield* caller, query)), locale, publicUrl))
      })
    )
    .handle("get", ({ params }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        const view = Views.post(yield* respond(Posts.getPost(yield* caller, Ids.unchecked("post", params.id))), locale, publicUrl)
        return postBody(yield* withMetrics(view))
      })
    )
    .handle("update", ({ params, payload }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(Effect.map(Posts.updatePost(yield* caller, Ids.unchecked("post", params.id), payload), (p) => Views.post(p, locale, publicUrl)))
      })
    )
    .handle("cancel", ({ params }) =>
      Effect.gen(function* () {
        const who = yield* caller
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(Effect.map(Posts.cancelPost(who, Ids.unchecked("post", params.id)), (p) => Views.post(p, locale, publicUrl))).pipe(
          idempotent({
            key: yield* headerKey,
            workspaceId: who.workspaceId,
            keyId: who.keyId,
            request: ["POST", `/v1/posts/${params.id}/cancel`],
            status: 200,
            schema: Post.Post
          })
        )
      })
    )
    .handle("retry", ({ params }) =>
      Effect.gen(function* () {
        const who = yield* caller
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(Effect.map(Posts.retryPost(who, Ids.unchecked("post", params.id)), (r) => Views.retried(r, locale, publicUrl))).pipe(
          idempotent({
            key: yield* headerKey,
            workspaceId: who.workspaceId,
            keyId: who.keyId,
            request: ["POST", `/v1/posts/${params.id}/retry`],
            status: 200,
            schema: Post.RetryPostResponse
          })
        )
      })
    )
)

/** /v1/accounts… */
export const AccountsHandlers = HttpApiBuilder.group(Api, "accounts", (handlers) =>
  handlers
    .handle("list", ({ query }) =>
      Effect.gen(function* () {
        return yield* respond(Accounts.listAccounts(yield* caller, query, yield* requestLocale))
      })
    )
    .handle("get", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Accounts.getAccount(yield* caller, Ids.unchecked("account", params.id), yield* requestLocale))
      })
    )
    .handle("connect", ({ payload }) =>
      Effect.gen(function* () {
        return yield* respond(Connect.createConnectLink(yield* caller, payload))
      })
    )
    .handle("reconnect", ({ params, payload }) =>
      Effect.gen(function* () {
        return yield* respond(Connect.createReconnectLink(yield* caller, Ids.unchecked("account", params.id), payload ?? {}))
      })
    )
    .handle("disconnect", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Connect.disconnectAccount(yield* caller, Ids.unchecked("account", params.id), yield* requestLocale))
      })
    )
)

/** /v1/profiles… */
export const ProfilesHandlers = HttpApiBuilder.group(Api, "profiles", (handlers) =>
  handlers
    .handle("list", ({ query }) =>
      Effect.gen(function* () {
        return yield* respond(Accounts.listProfiles(yield* caller, query))
      })
    )
    .handle("create", ({ payload }) =>
      Effect.gen(function* () {
        return yield* respond(Profiles.createProfile(yield* caller, payload))
      })
    )
    .handle("get", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Profiles.getProfile(yield* caller, Ids.unchecked("profile", params.id)))
      })
    )
    .handle("update", ({ params, payload }) =>
      Effect.gen(function* () {
        return yield* respond(Profiles.updateProfile(yield* caller, Ids.unchecked("profile", params.id), payload))
      })
    )
    .handle("delete", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Profiles.deleteProfile(yield* caller, Ids.unchecked("profile", params.id)))
      })
    )
)

const mediaRequestKey = (payload: MediaWire.CreateMediaRequest | MediaWire.UploadMediaForm, bytes?: Uint8Array) =>
  "file" in payload
    ? { form: createHash("sha256").update(bytes ?? new Uint8Array()).digest("hex"), filename: payload.filename }
    : payload

/** /v1/media… */
export const MediaHandlers = HttpApiBuilder.group(Api, "media", (handlers) =>
  handlers
    .handle("upload", ({ payload, headers }) =>
      Effect.gen(function* () {
        const who = yield* caller
        const key = headers["idempotency-key"]
        if ("file" in payload) {
          const file = payload.file
          const bytes = yield* readFormFile(file.path)
          const filename = payload.filename ?? (file.name === "" ? null : file.name.slice(0, 255))
          return yield* respond(Media.storeUploadedBytes(who, bytes, filename, "file")).pipe(
            idempotent({
              key,
              workspaceId: who.workspaceId,
              keyId: who.keyId,
              request: ["POST", "/v1/media", mediaRequestKey(payload, bytes)],
              status: 201,
              schema: MediaWire.Media
            })
          )
        }
        if ("url" in payload) {
          const accepted = yield* respond(Media.importMedia(who, payload)).pipe(
            idempotent({
              key,
              workspaceId: who.workspaceId,
              keyId: who.keyId,
              request: ["POST", "/v1/media", payload],
              status: 202,
              schema: MediaWire.Media
            })
          )
          // A replay is already a response; a new import is answered 202.
          return HttpServerResponse.isHttpServerResponse(accepted)
            ? accepted
            : HttpServerResponse.jsonUnsafe(Schema.encodeSync(MediaWire.Media)(accepted), { status: 202 })
        }
        return yield* respond(Media.uploadMedia(who, payload)).pipe(
          idempotent({
            key,
            workspaceId: who.workspaceId,
            keyId: who.keyId,
            request: ["POST", "/v1/media", payload],
            status: 201,
            schema: MediaWire.Media
          })
        )
      })
    )
    .handle("list", ({ query }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(Effect.map(Media.listMedia(yield* caller, query), (p) => Views.mediaList(p, locale, publicUrl)))
      })
    )
    .handle("get", ({ params }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(Effect.map(Media.getMedia(yield* caller, Ids.unchecked("media", params.id)), (m) => Views.media(m, locale, publicUrl)))
      })
    )
    .handle("delete", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Media.deleteMedia(yield* caller, Ids.unchecked("media", params.id)))
      })
    )
    .handle("createUpload", ({ payload }) =>
      Effect.gen(function* () {
        return yield* respond(Media.createUpload(yield* caller, payload))
      })
    )
    .handle("getUpload", ({ params }) =>
      Effect.gen(function* () {
        return yield* respond(Media.getUpload(yield* caller, Ids.unchecked("media", params.id)))
      })
    )
    .handle("uploadPart", ({ params, headers, payload }) =>
      Effect.gen(function* () {
        return yield* respond(Media.receiveUploadPart(yield* caller, Ids.unchecked("media", params.id), headers["content-range"], payload))
      })
    )
    .handle("completeUpload", ({ params }) =>
      Effect.gen(function* () {
        const locale = yield* requestLocale
        const { publicUrl } = yield* ServerConfig
        return yield* respond(Effect.map(Media.completeUpload(yield* caller, Ids.unchecked("media", params.id)), (m) => Views.media(m, locale, publicUrl)))
      })
    )
)

/** A form's file, at most the inline limit (it was written to a temporary file by the parser). */
const readFormFile = (path: string) =>
  Effect.gen(function* () {
    const size = yield* Effect.promise(() => stat(path).then((s) => s.size))
    if (size > MediaWire.maxInlineUploadBytes) {
      return yield* respond(
        Effect.fail(new PostwireError({ code: "payload_too_large", field: "file", details: { limit: MediaWire.maxInlineUploadBytes } }))
      )
    }
    return new Uint8Array(yield* Effect.promise(() => readFile(path)))
  })

/** GET /health */
export const SystemHandlers = HttpApiBuilder.group(Api, "system", (handlers) =>
  handlers.handle("health", () => Effect.succeed({ status: "ok" as const }))
)

/** Every handler group of the public API. */
export const ApiHandlers = Layer.mergeAll(PostsHandlers, AccountsHandlers, ProfilesHandlers, MediaHandlers, SystemHandlers)
