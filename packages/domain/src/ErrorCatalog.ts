/**
 * The error catalog: every error code the service can return, as data.
 *
 * Each entry carries its HTTP status, whether retrying the same request can succeed, and the
 * English and Indonesian texts. Texts may hold `{placeholders}` filled from the error's details.
 * The words that complete a sentence (a `{detail}` reason, a `{resource}` name) are in
 * `ErrorDetail`, in both languages too; no other module holds error text.
 *
 * @since 0.1.0
 */
import { fillPlaceholders, inLocale, type PlaceholderValue } from "./LocalizedText.ts"

/** One catalog entry. */
export interface CatalogEntry {
  /** HTTP status of a response carrying this code. */
  readonly status: number
  /** Whether retrying the same request (or target) can succeed without changes. */
  readonly retryable: boolean
  /** Where the code comes from, for the error reference page. */
  readonly kind: "generic" | "request" | "platform"
  /** English text; `{name}` placeholders are filled from the error's details. */
  readonly en: string
  /** Indonesian text; same placeholders as `en`. */
  readonly indonesian: string
  /** When a user sees the code, in English, for the error reference page. */
  readonly when: string
}

const entry = (e: CatalogEntry): CatalogEntry => e

/** Every code the service returns, with its status, retryability and both texts. */
export const ErrorCatalog = {
  // Generic
  unauthorized: entry({
    status: 401,
    retryable: false,
    kind: "generic",
    en: "The API key is missing or invalid.",
    indonesian: "Kunci API tidak ada atau tidak valid.",
    when: "The Authorization header is missing, malformed, or names an unknown or revoked key."
  }),
  insufficient_scope: entry({
    status: 403,
    retryable: false,
    kind: "generic",
    en: "The API key lacks the scope {scope} that this endpoint requires.",
    indonesian: "Kunci API tidak memiliki cakupan {scope} yang dibutuhkan endpoint ini.",
    when: "The key is valid but was not granted the endpoint's scope."
  }),
  not_found: entry({
    status: 404,
    retryable: false,
    kind: "generic",
    en: "No {resource} with that id exists in this workspace.",
    indonesian: "Tidak ada {resource} dengan id tersebut di workspace ini.",
    when: "The resource does not exist, or belongs to another workspace."
  }),
  route_not_found: entry({
    status: 404,
    retryable: false,
    kind: "generic",
    en: "No route answers {method} {path}. The API reference at /docs lists every address.",
    indonesian: "Tidak ada rute untuk {method} {path}. Referensi API di /docs mencantumkan setiap alamat.",
    when: "The address is not one the service serves (a typo, or a version such as `/v2` that does not exist), whatever the method."
  }),
  method_not_allowed: entry({
    status: 405,
    retryable: false,
    kind: "generic",
    en: "{path} does not accept {method}; it accepts {allow}.",
    indonesian: "{path} tidak menerima {method}; yang diterima: {allow}.",
    when: "The address exists, but not with this method (`PUT /v1/posts`); the `Allow` header lists the methods it takes."
  }),
  invalid_request: entry({
    status: 400,
    retryable: false,
    kind: "generic",
    en: "The request is invalid at {field}: {detail}",
    indonesian: "Permintaan tidak valid pada {field}: {detail}",
    when: "The body, query or a header is malformed: a missing or unknown field, or a value of the wrong type or format."
  }),
  invalid_url: entry({
    status: 400,
    retryable: false,
    kind: "generic",
    en: "The url must be a public https address: {detail}",
    indonesian: "url harus berupa alamat https publik: {detail}",
    when: "A webhook url is not https, names a private, loopback or reserved address, or carries credentials."
  }),
  invalid_cursor: entry({
    status: 400,
    retryable: false,
    kind: "generic",
    en: "The cursor is malformed, expired, or was issued for other filters.",
    indonesian: "Cursor rusak, kedaluwarsa, atau diterbitkan untuk filter lain.",
    when: "A cursor was altered, is older than 24 hours, or is replayed with a different filter combination."
  }),
  invalid_range: entry({
    status: 400,
    retryable: false,
    kind: "generic",
    en: "The date range is invalid: {detail}",
    indonesian: "Rentang tanggal tidak valid: {detail}",
    when: "`to` is not after `from`, or the range is longer than 92 days."
  }),
  invalid_state: entry({
    status: 409,
    retryable: false,
    kind: "generic",
    en: "The {resource} cannot be changed in its current state: {detail}",
    indonesian: "Tidak dapat mengubah {resource} dalam status saat ini: {detail}",
    when: "The action is not valid for the resource's current state, e.g. editing a post that started publishing."
  }),
  rate_limited: entry({
    status: 429,
    retryable: true,
    kind: "generic",
    en: "Too many requests. Retry after {retry_after} seconds.",
    indonesian: "Terlalu banyak permintaan. Coba lagi setelah {retry_after} detik.",
    when: "The key exceeded 120 requests per minute, or 30 post creations per minute."
  }),
  internal_error: entry({
    status: 500,
    retryable: true,
    kind: "generic",
    en: "Something went wrong on our side. The request can be retried.",
    indonesian: "Terjadi kesalahan di sisi kami. Permintaan dapat dicoba lagi.",
    when: "An unexpected server failure. Nothing was half-written; retry with the same Idempotency-Key."
  }),
  service_unavailable: entry({
    status: 503,
    retryable: true,
    kind: "generic",
    en: "The service cannot reach its database right now. Retry in a few seconds, with the same Idempotency-Key.",
    indonesian: "Layanan tidak dapat menjangkau basis datanya saat ini. Coba lagi dalam beberapa detik, dengan Idempotency-Key yang sama.",
    when: "The database did not answer, or the connection to it was lost, while the request was being served. The request may or may not have been applied: retrying with the same Idempotency-Key is safe."
  }),
  // Request-level
  consent_required: entry({
    status: 422,
    retryable: false,
    kind: "request",
    en: "A shortvideo direct post needs explicit consent. Use approval.mode \"link\" or shortvideo.mode \"inbox\", or pass a consent object.",
    indonesian: "Unggahan langsung shortvideo memerlukan persetujuan eksplisit. Gunakan approval.mode \"link\" atau shortvideo.mode \"inbox\", atau sertakan objek consent.",
    when: "A shortvideo `direct` target has no `consent` while approval is off (422 on POST /posts), or an approval approves it without the consent the page asks for (409)."
  }),
  account_forbidden: entry({
    status: 403,
    retryable: false,
    kind: "request",
    en: "The account at {field} does not belong to this workspace.",
    indonesian: "Akun pada {field} bukan milik workspace ini.",
    when: "A target names an account that is unknown or belongs to another workspace."
  }),
  test_key_live_account: entry({
    status: 403,
    retryable: false,
    kind: "request",
    en: "A test key cannot use {field}: it is a live account or holds a live account's data. Test keys use only sandbox accounts and their data; use a live key.",
    indonesian: "Kunci uji tidak dapat memakai {field}: itu akun live atau menyimpan data akun live. Kunci uji hanya memakai akun sandbox dan datanya; gunakan kunci live.",
    when:
      "A `svc_test_` key names a live (non-sandbox) account, or a post, comment, event or media item of one, or a webhook endpoint of a workspace that has a live account (docs/decisions.md lists every route)."
  }),
  idempotency_conflict: entry({
    status: 409,
    retryable: false,
    kind: "request",
    en: "This Idempotency-Key was already used with a different request body.",
    indonesian: "Idempotency-Key ini sudah digunakan dengan isi permintaan yang berbeda.",
    when: "The same Idempotency-Key is sent within 24 hours with a different body."
  }),
  idempotency_in_progress: entry({
    status: 409,
    retryable: true,
    kind: "request",
    en: "A request with this Idempotency-Key is still being processed. Retry shortly.",
    indonesian: "Permintaan dengan Idempotency-Key ini masih diproses. Coba lagi sebentar lagi.",
    when: "The same Idempotency-Key arrives while the original request is still running."
  }),
  payload_too_large: entry({
    status: 400,
    retryable: false,
    kind: "request",
    en: "The uploaded media is larger than the limit of {limit} bytes.",
    indonesian: "Media yang diunggah melebihi batas {limit} byte.",
    when: "Inline base64 media decodes to more than 10 MiB."
  }),
  request_too_large: entry({
    status: 413,
    retryable: false,
    kind: "request",
    en: "The request body is larger than the limit of {limit} bytes for this address.",
    indonesian: "Isi permintaan melebihi batas {limit} byte untuk alamat ini.",
    when: "A request body is larger than its address accepts (1 MiB for JSON by default, about 14 MiB for POST /v1/media); the connection is closed after the answer."
  }),
  headers_too_large: entry({
    status: 431,
    retryable: false,
    kind: "request",
    en: "The request's headers are larger than the limit of {limit} bytes.",
    indonesian: "Header permintaan melebihi batas {limit} byte.",
    when: "The request line and headers together exceed 64 KiB; the connection is closed after the answer."
  }),
  unsupported_format: entry({
    status: 400,
    retryable: false,
    kind: "request",
    en: "The uploaded media is not an accepted format (JPEG, PNG, WebP, MP4, MOV).",
    indonesian: "Media yang diunggah bukan format yang diterima (JPEG, PNG, WebP, MP4, MOV).",
    when: "The uploaded bytes are not JPEG, PNG, WebP, MP4 or MOV (the type is read from the bytes, not the name)."
  }),
  media_not_found: entry({
    status: 400,
    retryable: false,
    kind: "request",
    en: "The media at {field} does not exist in this workspace.",
    indonesian: "Media pada {field} tidak ada di workspace ini.",
    when: "A post names a media id that is unknown or belongs to another workspace."
  }),
  quota_exceeded_for_day: entry({
    status: 429,
    retryable: true,
    kind: "request",
    en: "The day {day} of scheduled_at is already full for account {account_id}, which allows {limit} posts a day.",
    indonesian: "Hari {day} pada scheduled_at sudah penuh untuk akun {account_id}, yang dibatasi {limit} unggahan per hari.",
    when: "Batch creation: one item's `scheduled_at` day is full; the rest of the batch is not rejected."
  }),
  already_decided: entry({
    status: 409,
    retryable: false,
    kind: "request",
    en: "This approval link already has a decision.",
    indonesian: "Tautan persetujuan ini sudah memiliki keputusan.",
    when: "A second decision is sent for the same approval link."
  }),
  approval_expired: entry({
    status: 410,
    retryable: false,
    kind: "request",
    en: "This approval link has expired.",
    indonesian: "Tautan persetujuan ini sudah kedaluwarsa.",
    when: "A decision is sent after the approval link's `expires_at`."
  }),
  invalid_redirect_url: entry({
    status: 400,
    retryable: false,
    kind: "request",
    en: "The redirect_url must be https on one of the workspace's allowed domains: {detail}.",
    indonesian: "redirect_url harus https pada salah satu domain yang diizinkan workspace: {detail}.",
    when: "`redirect_url` is not https or its host is not an allowed domain (or a subdomain of one)."
  }),
  webhook_delivery_failed: entry({
    status: 502,
    retryable: true,
    kind: "request",
    en: "The webhook endpoint did not accept the delivery: {detail}",
    indonesian: "Endpoint webhook tidak menerima pengiriman: {detail}",
    when: "The `error` of a `POST /v1/webhooks/{id}/test` result, or of an attempt in a delivery log (`GET /v1/webhooks/{id}/deliveries`, redeliveries included): the endpoint answered other than 2xx, did not answer within 10 seconds, or could not be reached; or nothing was sent because the endpoint's stored signing secret does not open with the server's master secrets. The calls themselves answer 200."
  }),
  caption_too_long: entry({
    status: 422,
    retryable: false,
    kind: "request",
    en: "The caption is longer than {limit} characters, the limit of {platform}.",
    indonesian: "Caption lebih panjang dari {limit} karakter, batas untuk {platform}.",
    when: "The caption exceeds a target platform's limit (shortvideo 2,200, photo 2,200, textpost 500, pages 63,206)."
  }),
  caption_invalid: entry({
    status: 422,
    retryable: false,
    kind: "request",
    en: "The caption does not fit {platform}: {detail}",
    indonesian: "Caption tidak sesuai untuk {platform}: {detail}",
    when: "The caption breaks a target platform's rule other than its length: more hashtags, @mentions or links than the platform takes (for example 30 hashtags and 20 mentions on Instagram, 5 links on Threads). `details.detail` names the rule and its limit."
  }),
  media_invalid: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "The media does not fit {platform}: {detail}",
    indonesian: "Media tidak sesuai untuk {platform}: {detail}",
    when: "The media count or kind does not fit the target (e.g. a reel needs exactly one video), or the platform rejected the file."
  }),
  account_restricted: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "The platform has restricted this account from posting.",
    indonesian: "Platform telah membatasi akun ini untuk mengunggah.",
    when: "The platform reports the account as banned, spam-restricted or temporarily blocked."
  }),
  // Platform codes
  media_too_long: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "The video is {duration} seconds long; this account allows at most {limit} seconds.",
    indonesian: "Video berdurasi {duration} detik; akun ini mengizinkan paling lama {limit} detik.",
    when: "A video is longer than the account's maximum duration."
  }),
  privacy_level_mismatch: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "The privacy level is not available for this account.",
    indonesian: "Tingkat privasi tidak tersedia untuk akun ini.",
    when: "The chosen shortvideo privacy level is not one of the account's privacy_level_options."
  }),
  quota_exceeded: entry({
    status: 422,
    retryable: true,
    kind: "platform",
    en: "The account reached its daily posting limit of {limit}. It resets at {resets_at}.",
    indonesian: "Akun telah mencapai batas unggahan harian {limit}. Batas diatur ulang pada {resets_at}.",
    when: "The account's rolling 24-hour posting quota is used up; retrying succeeds after it resets."
  }),
  token_expired: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "The account's access has expired. Reconnect the account.",
    indonesian: "Akses akun telah kedaluwarsa. Hubungkan ulang akun tersebut.",
    when: "The platform token expired and could not be refreshed; the account must be reconnected."
  }),
  permission_missing: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "The account no longer grants the permission needed to publish. Reconnect the account.",
    indonesian: "Akun tidak lagi memberikan izin yang dibutuhkan untuk mengunggah. Hubungkan ulang akun tersebut.",
    when: "A page task was revoked or a scope removed."
  }),
  platform_unavailable: entry({
    status: 503,
    retryable: true,
    kind: "platform",
    en: "The platform is unavailable right now. The service retried; you can retry later.",
    indonesian: "Platform sedang tidak tersedia. Layanan sudah mencoba ulang; Anda dapat mencoba lagi nanti.",
    when: "The platform answered 5xx, throttled, or timed out; retried internally before failing."
  }),
  content_rejected: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "The platform refused the post's content: {detail}",
    indonesian: "Platform menolak isi unggahan: {detail}",
    when: "The platform flagged the post after accepting it (TikTok `spam_risk_text`: the caption; `spam_risk`: the post); retrying the same post is refused again."
  }),
  media_fetch_failed: entry({
    status: 502,
    retryable: true,
    kind: "platform",
    en: "{platform} could not download the media from this server's public address. Check that POSTWIRE_PUBLIC_URL is reachable from the internet, then retry the target.",
    indonesian: "{platform} tidak dapat mengunduh media dari alamat publik server ini. Pastikan POSTWIRE_PUBLIC_URL dapat dijangkau dari internet, lalu coba ulang target.",
    when: "The platform pulls the media from Postwire and could not (TikTok `video_pull_failed`, `photo_pull_failed`: a connection error, or the download did not finish within an hour)."
  }),
  publish_unconfirmed: entry({
    status: 502,
    retryable: false,
    kind: "platform",
    en: "{platform} has not said whether the post sent at {sent_at} was published, and it is not among the account's posts. Check the account before publishing it again.",
    indonesian: "{platform} belum menyatakan apakah unggahan yang dikirim pada {sent_at} sudah terbit, dan unggahan itu tidak ada di antara unggahan akun. Periksa akun sebelum menerbitkannya lagi.",
    when: "A publish was sent, and within the platform's bound (docs/publishing.md, \"How long an unknown outcome is waited for\") neither its status nor the account's posts said whether it was published. Not retried automatically: a retry could publish it twice."
  }),
  comment_action_unsupported: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "The platform does not let Postwire {action} this account's comments.",
    indonesian: "Platform tidak mengizinkan Postwire untuk {action} komentar akun ini.",
    when: "A comment action the account's platform does not offer to apps (TikTok gives no comment access); the account's `comments` capabilities say what is offered."
  }),
  platform_hook_unverified: entry({
    status: 401,
    retryable: false,
    kind: "platform",
    en: "The platform webhook request could not be verified: {detail}",
    indonesian: "Permintaan webhook platform tidak dapat diverifikasi: {detail}",
    when: "A request to `/platform-hooks/meta` whose `X-Hub-Signature-256` does not match the app secret, or a subscription check with the wrong verify token."
  }),
  too_many_pending: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "Too many drafts are waiting in the account's inbox. Finish or delete some in the app.",
    indonesian: "Terlalu banyak draf menunggu di kotak masuk akun. Selesaikan atau hapus beberapa di aplikasi.",
    when: "The shortvideo inbox already holds the maximum number of pending shares."
  }),
  platform_app_rejected: entry({
    status: 502,
    retryable: true,
    kind: "platform",
    en: "{platform} refused this server's app credentials: the client key or secret ({settings}) is wrong, or the app was disabled on the platform. The operator corrects them and restarts the server, then retries the target; the account does not need to be reconnected.",
    indonesian: "{platform} menolak kredensial aplikasi server ini: client key atau secret ({settings}) salah, atau aplikasi dinonaktifkan di platform. Operator memperbaikinya dan memulai ulang server, lalu mencoba ulang target; akun tidak perlu dihubungkan ulang.",
    when: "A token refresh while publishing was refused because of the app, not the account (TikTok `invalid_client` or `unauthorized_client`, developers.tiktok.com/doc/oauth-error-handling): the operator's client key or secret is wrong. The account stays connected; retry the target once the settings are fixed."
  }),
  media_url_unverified: entry({
    status: 502,
    retryable: true,
    kind: "platform",
    en: "{platform} refused to download the media from {url}: that domain or URL prefix is not verified in the platform app's settings. The media is fine: the operator verifies the domain or URL prefix of POSTWIRE_PUBLIC_URL in the app's settings on the platform's developer portal, then retries the target.",
    indonesian: "{platform} menolak mengunduh media dari {url}: domain atau prefiks URL tersebut belum diverifikasi di pengaturan aplikasi platform. Medianya tidak bermasalah: operator memverifikasi domain atau prefiks URL dari POSTWIRE_PUBLIC_URL di pengaturan aplikasi pada portal pengembang platform, lalu mencoba ulang target.",
    when: "The platform pulls the media from Postwire's public address and that address is outside the app's verified domains or URL prefixes (TikTok `url_ownership_unverified`, developers.tiktok.com/doc/content-posting-api-media-transfer-guide): an operator setting on the platform, not the media."
  }),
  // Tool server (MCP)
  approval_required: entry({
    status: 403,
    retryable: false,
    kind: "request",
    en: "This tool server publishes only after a person approves: `approval.mode` \"none\" is not accepted. Leave `approval` out and share the approval link.",
    indonesian: "Server alat ini hanya menerbitkan setelah seseorang menyetujui: `approval.mode` \"none\" tidak diterima. Hapus `approval` dan bagikan tautan persetujuan.",
    when: "An agent asked the tool server to create a post without approval, and the operator did not start it with --allow-skip-approval."
  }),
  consent_by_person: entry({
    status: 422,
    retryable: false,
    kind: "request",
    en: "Consent for a direct shortvideo post is given by a person on the approval page; the consent the agent sent was set aside.",
    indonesian: "Persetujuan untuk unggahan video pendek langsung diberikan oleh seseorang di halaman persetujuan; persetujuan yang dikirim agen diabaikan.",
    when: "A warning of the tool server: an agent sent consent for a shortvideo direct target; a person gives it on the approval page instead."
  }),
  api_unreachable: entry({
    status: 503,
    retryable: true,
    kind: "generic",
    en: "The tool server could not reach the Postwire API. Try again shortly.",
    indonesian: "Server alat tidak dapat menghubungi API Postwire. Coba lagi sebentar lagi.",
    when: "The tool server's call to the API failed before an answer arrived (network failure, server down)."
  }),
  unexpected_response: entry({
    status: 502,
    retryable: false,
    kind: "generic",
    en: "The Postwire API answered in a form this tool server does not understand. Check that both run the same version.",
    indonesian: "API Postwire menjawab dalam bentuk yang tidak dipahami server alat ini. Pastikan keduanya menjalankan versi yang sama.",
    when: "The API's answer did not match the contract the tool server was built with, e.g. a proxy's page or another version."
  }),
  unknown_error_code: entry({
    status: 404,
    retryable: false,
    kind: "request",
    en: "There is no Postwire error code with that name. The `postwire://errors` resource lists them all.",
    indonesian: "Tidak ada kode kesalahan Postwire dengan nama tersebut. Sumber `postwire://errors` memuat semuanya.",
    when: "The tool server's explain_error tool was asked about a code the catalog does not hold."
  }),
  connect_refused: entry({
    status: 403,
    retryable: false,
    kind: "platform",
    en: "The account was not connected: permission was declined on the platform.",
    indonesian: "Akun tidak terhubung: izin ditolak di platform.",
    when: "The person pressed Cancel on the platform's consent page, or granted none of what Postwire asks for."
  }),
  connect_failed: entry({
    status: 422,
    retryable: false,
    kind: "platform",
    en: "The platform did not complete the connection. Start connecting again.",
    indonesian: "Platform tidak menyelesaikan penghubungan. Mulai hubungkan lagi.",
    when: "The platform refused the authorization code or the app: an expired or reused code, a redirect address it does not know, or wrong app credentials."
  }),
  platform_not_configured: entry({
    status: 422,
    retryable: false,
    kind: "generic",
    en: "This server cannot connect {platform} accounts yet: set {settings}.",
    indonesian: "Server ini belum dapat menghubungkan akun {platform}: atur {settings}.",
    when: "The server has no app credentials for the platform; sandbox connects need none."
  }),
  connect_link_expired: entry({
    status: 410,
    retryable: false,
    kind: "request",
    en: "This connect link has expired. Ask for a new link.",
    indonesian: "Tautan penghubung ini sudah kedaluwarsa. Mintalah tautan baru.",
    when: "A connect link is opened, or its platform answers, more than 30 minutes after the link was made."
  }),
  connect_link_used: entry({
    status: 409,
    retryable: false,
    kind: "request",
    en: "This connect link has already been used. Ask for a new link.",
    indonesian: "Tautan penghubung ini sudah digunakan. Mintalah tautan baru.",
    when: "A connect link is opened again after it connected an account, or after the person declined."
  }),
  connect_state_invalid: entry({
    status: 400,
    retryable: false,
    kind: "request",
    en: "The answer from the platform does not belong to a connect in progress. Open the connect link again.",
    indonesian: "Jawaban dari platform tidak cocok dengan proses penghubungan yang sedang berjalan. Buka lagi tautan penghubung.",
    when: "The platform's callback carries a `state` that is missing, altered, or from an earlier attempt of the link."
  }),
  connect_wrong_account: entry({
    status: 409,
    retryable: false,
    kind: "request",
    en: "This link reconnects {expected}, but the platform signed in {handle}. Sign in to {expected} and open a new link.",
    indonesian: "Tautan ini menghubungkan kembali {expected}, tetapi platform masuk sebagai {handle}. Masuk ke {expected} lalu buka tautan baru.",
    when: "A reconnect link (`POST /v1/accounts/{id}/reconnect`) was completed with another platform account."
  }),
  // Operations
  not_ready: entry({
    status: 503,
    retryable: true,
    kind: "generic",
    en: "This instance is not ready: {detail}.",
    indonesian: "Instans ini belum siap: {detail}.",
    when: "`GET /ready` while the database does not answer, migrations are pending, the database was migrated by a newer version, or (on a worker) a background loop stopped."
  }),
  platform_version_inactive: entry({
    status: 502,
    retryable: true,
    kind: "platform",
    en: "{platform} does not serve the API version {version} this server asks for. The operator sets {settings} to a version the platform serves and restarts the server, then retries the target.",
    indonesian: "{platform} tidak melayani versi API {version} yang diminta server ini. Operator mengatur {settings} ke versi yang dilayani platform dan memulai ulang server, lalu mencoba ulang target.",
    when: "A platform with monthly API versions refused the version in the server's setting: LinkedIn answers 426 `NONEXISTENT_VERSION` for a version that was sunset or does not exist yet (https://learn.microsoft.com/en-us/linkedin/marketing/versioning). The account stays connected."
  }),
  option_required: entry({
    status: 422,
    retryable: false,
    kind: "request",
    en: "The {platform} target needs the option {option}: {detail}",
    indonesian: "Target {platform} memerlukan opsi {option}: {detail}",
    when: "A target leaves out a per-target option its platform requires and Postwire never picks for the person (video: `made_for_kids`, YouTube's made-for-kids declaration)."
  })
} as const satisfies Record<string, CatalogEntry>

/** Every error code the service can return. */
export type ErrorCode = keyof typeof ErrorCatalog

/** All codes, in catalog order. */
export const errorCodes: ReadonlyArray<ErrorCode> = Object.keys(ErrorCatalog) as Array<ErrorCode>

/** Whether a string is a known error code. */
export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ErrorCatalog, code)

/** A language the service speaks. */
export type Locale = "en" | "id"

/** Chooses the locale from an `Accept-Language` header: `id` (any region) selects Indonesian. */
export const localeFromAcceptLanguage = (header: string | null | undefined): Locale => {
  if (!header) return "en"
  const ranked = header
    .split(",")
    .map((part) => {
      const [tag, ...params] = part.trim().split(";")
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
      return { tag: (tag ?? "").toLowerCase(), q: q ? Number(q.slice(2)) : 1 }
    })
    .filter((r) => r.tag !== "" && !Number.isNaN(r.q) && r.q > 0)
    .sort((a, b) => b.q - a.q)
  const first = ranked[0]
  return first && (first.tag === "id" || first.tag.startsWith("id-")) ? "id" : "en"
}

/**
 * Renders a code's message in `locale`, filling its `{name}` placeholders from `details`: a
 * `LocalizedText` in that language, identifiers and numbers as they are. A placeholder
 * without a value is left out cleanly.
 *
 * @example
 * ```ts
 * import { renderMessage } from "@postwire/domain"
 * renderMessage("insufficient_scope", "en", { scope: "posts:write" })
 * // "The API key lacks the scope posts:write that this endpoint requires."
 * renderMessage("invalid_url", "en") // "The url must be a public https address."
 * ```
 */
export const renderMessage = (
  code: ErrorCode,
  locale: Locale,
  details: Readonly<Record<string, PlaceholderValue | undefined>> = {}
): string => {
  const isEmpty = (name: string) => {
    const value = details[name]
    return value === undefined || inLocale(value, locale) === ""
  }
  // The sentence is tidied before any value goes in, so only the catalog's own text is
  // touched: a value such as the address `::1` or `fe80::` reaches the message as it is.
  const sentence = (locale === "en" ? ErrorCatalog[code].en : ErrorCatalog[code].indonesian)
    .replace(/\{(\w+)\}/g, (placeholder, name: string) => (isEmpty(name) ? "" : placeholder))
    .replace(/\s+([.:,])/g, "$1")
    .replace(/ {2,}/g, " ")
    .replace(/:\s*$/, ".")
    .trim()
  return fillPlaceholders(sentence, locale, details)
}
