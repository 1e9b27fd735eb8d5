/**
 * The free-text parts of error messages: every reason that fills a message's `{detail}` and
 * every resource name that fills its `{resource}`, in English and Indonesian, as data.
 *
 * The catalog holds each code's sentence; this module holds the words that complete it, so that
 * `message_id` is Indonesian throughout. Producers name a reason, never write the text:
 *
 * @example
 * ```ts
 * import { ErrorDetail, PostwireError } from "@postwire/domain"
 * new PostwireError({
 *   code: "invalid_request",
 *   field: "targets[1].account_id",
 *   details: { detail: ErrorDetail.reason("account_listed_twice") }
 * })
 * new PostwireError({ code: "not_found", details: { resource: ErrorDetail.resource("post") } })
 * ```
 *
 * Reasons may hold `{placeholders}` of their own, filled with identifiers, numbers, or other
 * texts (`ErrorDetail.reason("resolves_to", { host, address, range: ErrorDetail.reason("private_address") })`).
 *
 * @since 0.1.0
 */
import { fillPlaceholders, type LocalizedText, type PlaceholderValue, type Placeholders } from "./LocalizedText.ts"

const text = <const En extends string>(en: En, id: string): { readonly en: En; readonly id: string } => ({ en, id })

/** Every reason a request, a publish or a delivery can fail for, in both languages. */
export const reasons = {
  // A request that does not match its schema
  required: text("is required", "wajib diisi"),
  unknown_field: text("is not a known field", "bukan kolom yang dikenal"),
  must_be_string: text("must be a string", "harus berupa teks"),
  must_be_number: text("must be a number", "harus berupa angka"),
  must_be_boolean: text("must be true or false", "harus bernilai true atau false"),
  must_be_array: text("must be an array", "harus berupa array"),
  must_be_object: text("must be an object", "harus berupa objek"),
  must_be_null: text("must be null", "harus bernilai null"),
  must_equal: text("must be {value}", "harus bernilai {value}"),
  must_be_one_of: text("must be one of {values}", "harus salah satu dari {values}"),
  must_not_be_empty: text("must not be empty", "tidak boleh kosong"),
  min_length: text("must have a length of at least {min}", "panjangnya harus paling sedikit {min}"),
  max_length: text("must have a length of at most {max}", "panjangnya tidak boleh lebih dari {max}"),
  invalid_value: text("is not valid", "tidak valid"),
  malformed: text("is malformed", "formatnya tidak valid"),
  invalid_json: text("must be valid JSON", "harus berupa JSON yang valid"),
  json_object: text("must be a JSON object", "harus berupa objek JSON"),
  id_prefix: text('must be an id starting with "{prefix}"', 'harus berupa id yang diawali "{prefix}"'),
  instant_with_offset: text(
    "must be an ISO 8601 timestamp with a UTC offset, e.g. 2026-11-22T09:00:00+07:00",
    "harus berupa stempel waktu ISO 8601 dengan offset UTC, misalnya 2026-11-22T09:00:00+07:00"
  ),
  email: text("must be an e-mail address", "harus berupa alamat e-mail"),
  must_be_true: text("must be true", "harus bernilai true"),
  integer_between: text("must be an integer from {min} to {max}", "harus berupa bilangan bulat dari {min} sampai {max}"),
  positive_integer: text("must be a positive integer", "harus berupa bilangan bulat positif"),
  nul_character: text("must not contain the NUL character", "tidak boleh mengandung karakter NUL"),
  base64: text("must be base64-encoded bytes", "harus berupa byte yang dienkode dengan base64"),
  chunked_encoding: text(
    "is not valid chunked transfer encoding (each chunk starts with its size in hexadecimal)",
    "bukan transfer encoding chunked yang valid (setiap chunk diawali ukurannya dalam heksadesimal)"
  ),

  // Readiness: why an instance is not ready
  still_starting: text("it is still starting", "instans ini masih dalam proses mulai"),
  database_no_answer: text(
    "its database gave no answer within {ms} ms",
    "basis datanya tidak menjawab dalam {ms} ms"
  ),
  database_unreachable: text("its database cannot be reached", "basis datanya tidak dapat dijangkau"),
  schema_behind: text(
    "its database still needs the migrations {migrations} (run `postwire migrate`)",
    "basis datanya masih memerlukan migrasi {migrations} (jalankan `postwire migrate`)"
  ),
  schema_ahead: text(
    "its database was migrated by a newer version ({migrations})",
    "basis datanya dimigrasikan oleh versi yang lebih baru ({migrations})"
  ),
  loops_stopped: text("its background loops {loops} stopped", "proses latar {loops} berhenti"),

  // Redirects
  allowed_domains_are: text("{domains}, or a subdomain of one", "{domains}, atau subdomainnya"),
  no_allowed_domains: text(
    "it allows none yet (an operator adds them with `postwire admin workspace update --workspace {workspace} --allowed-redirect-domains …` or `PATCH /admin/v1/workspaces/{workspace}`)",
    "belum ada yang diizinkan (operator menambahkannya dengan `postwire admin workspace update --workspace {workspace} --allowed-redirect-domains …` atau `PATCH /admin/v1/workspaces/{workspace}`)"
  ),

  // Posts
  media_listed_twice: text("the same media appears twice", "media yang sama tercantum dua kali"),
  account_listed_twice: text("the same account appears twice", "akun yang sama tercantum dua kali"),
  event_type_listed_twice: text("the same event type appears twice", "jenis event yang sama tercantum dua kali"),
  account_of_other_profile: text(
    "the account belongs to profile {profile_id}, not to the post's profile",
    "akun ini milik profil {profile_id}, bukan profil unggahan ini"
  ),
  account_of_platform: text("the account is a {platform} account", "akun ini adalah akun {platform}"),
  platform_not_served: text(
    "the account's platform {platform} is not served by this server (known platforms: {values})",
    "platform akun ini, {platform}, tidak dilayani server ini (platform yang dikenal: {values})"
  ),
  range_order: text("`to` must be after `from`", "`to` harus lebih lambat dari `from`"),
  range_too_long: text("the range may span at most {days} days", "rentang tanggal paling panjang {days} hari"),
  calendar_date: text("must be a date written YYYY-MM-DD, e.g. 2026-11-22", "harus berupa tanggal YYYY-MM-DD, misalnya 2026-11-22"),
  time_zone: text(
    "must be a time zone: an IANA name such as Asia/Jakarta, UTC, or an offset such as +07:00",
    "harus berupa zona waktu: nama IANA seperti Asia/Jakarta, UTC, atau offset seperti +07:00"
  ),
  publishing_started: text("publishing has started", "publikasi sudah dimulai"),
  post_is: text("the post is {status}", "unggahan ini berstatus {status}"),
  post_already: text("the post is already {status}", "unggahan ini sudah berstatus {status}"),
  target_publishing: text("a target is publishing", "ada target yang sedang dipublikasikan"),
  nothing_to_retry: text(
    "no target failed with a retryable error",
    "tidak ada target yang gagal dengan kesalahan yang dapat dicoba lagi"
  ),
  no_longer_awaiting_approval: text(
    "the post is {status} and no longer waits for approval",
    "unggahan ini berstatus {status} dan tidak lagi menunggu persetujuan"
  ),
  consent_not_awaited: text(
    "no target of this post waits for consent under this id",
    "tidak ada target unggahan ini yang menunggu persetujuan dengan id ini"
  ),

  // Media lifecycle
  media_in_use: text(
    "post {post_id} uses it and has not finished publishing",
    "unggahan {post_id} memakainya dan belum selesai dipublikasikan"
  ),
  upload_parts_missing: text(
    "{count} of its parts have not arrived (the first missing is part {part})",
    "{count} bagiannya belum diterima (bagian pertama yang belum ada: {part})"
  ),
  upload_not_open: text("the upload is {status} and takes no more parts", "unggahan ini berstatus {status} dan tidak menerima bagian lagi"),
  upload_expired: text("the upload expired before it was completed", "unggahan ini kedaluwarsa sebelum diselesaikan"),
  content_range: text(
    "must be `bytes start-end/size` covering one whole part of {part_size} bytes, with size {size}",
    "harus berupa `bytes awal-akhir/ukuran` yang mencakup satu bagian utuh sebesar {part_size} byte, dengan ukuran {size}"
  ),
  part_length: text("the body had {received} bytes where the part has {expected}", "badan permintaan berisi {received} byte, padahal bagian ini {expected} byte"),
  url_answered: text("the address answered with HTTP status {status}", "alamat tersebut menjawab dengan status HTTP {status}"),
  url_too_large: text("the file is larger than {limit} bytes", "berkasnya lebih besar dari {limit} byte"),
  url_timed_out: text("the download did not finish within {seconds} seconds", "unduhan tidak selesai dalam {seconds} detik"),
  url_unreachable: text("the address could not be reached", "alamat tersebut tidak dapat dihubungi"),
  too_many_redirects: text("it redirected more than {max} times", "alamat tersebut dialihkan lebih dari {max} kali"),

  // Media rules shared by platforms
  items_max: text("a post takes at most {max} images or videos", "unggahan berisi paling banyak {max} gambar atau video"),

  // What a platform said
  platform_rejected_request: text("the platform rejected the request", "platform menolak permintaan ini"),
  platform_could_not_process_media: text("the platform could not process the media", "platform tidak dapat memproses media ini"),
  platform_could_not_process_video: text("the platform could not process the video", "platform tidak dapat memproses video ini"),
  platform_could_not_fetch_media: text("the platform could not fetch the media", "platform tidak dapat mengambil media ini"),
  platform_could_not_fetch_video: text("the platform could not fetch the video", "platform tidak dapat mengambil video ini"),
  platform_refused_duplicate: text("the platform refused a duplicate post", "platform menolak unggahan duplikat"),
  unsupported_video_format: text("unsupported video format", "format video tidak didukung"),
  image_not_accepted: text(
    "image size, format, aspect ratio or caption not accepted",
    "ukuran, format, rasio aspek gambar, atau caption tidak diterima"
  ),
  video_duration_not_accepted: text("the video's duration was not accepted", "durasi video tidak diterima"),
  publish_cancelled_on_platform: text("the publish was cancelled on the platform", "publikasi dibatalkan di platform"),
  frame_rate_not_accepted: text("the video's frame rate was not accepted", "frame rate video tidak diterima"),
  picture_size_not_accepted: text("the video's picture size was not accepted", "ukuran gambar video tidak diterima"),
  caption_flagged_as_spam: text("the caption was flagged as a spam risk", "caption ditandai sebagai berisiko spam"),
  post_flagged_as_spam: text("the post was flagged as a spam risk", "unggahan ditandai sebagai berisiko spam"),
  simulated_failure: text("simulated failure", "kegagalan simulasi"),
  // Comment actions, for `comment_action_unsupported`
  comment_reply: text("answer", "membalas"),
  comment_hide: text("hide or show", "menyembunyikan atau menampilkan"),
  comment_delete: text("delete", "menghapus"),
  comment_read: text("read", "membaca"),
  hook_signature_mismatch: text("the X-Hub-Signature-256 header is missing or does not match", "header X-Hub-Signature-256 tidak ada atau tidak cocok"),
  hook_verify_token_mismatch: text("hub.mode or hub.verify_token is wrong", "hub.mode atau hub.verify_token salah"),

  // Webhook endpoints: why a url is refused
  url_too_long: text("it is longer than {max} characters", "panjangnya melebihi {max} karakter"),
  url_not_absolute: text("it is not an absolute URL", "alamat ini bukan URL absolut"),
  url_not_https: text("it must use https", "alamat harus menggunakan https"),
  url_loopback_not_allowed: text(
    "{host} is a loopback address, refused unless the server runs with `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1` (for development only)",
    "{host} adalah alamat loopback, ditolak kecuali server dijalankan dengan `POSTWIRE_UNSAFE_ALLOW_LOOPBACK_WEBHOOKS=1` (hanya untuk pengembangan)"
  ),
  url_credentials: text(
    "it must not carry a user name or password",
    "alamat tidak boleh memuat nama pengguna atau kata sandi"
  ),
  host_unresolvable: text("{host} does not resolve to an address", "{host} tidak mengarah ke alamat IP mana pun"),
  unnamed_host_unresolvable: text(
    "its host does not resolve to an address",
    "host alamat ini tidak mengarah ke alamat IP mana pun"
  ),
  resolves_to: text("{host} resolves to {address}, {range}", "{host} mengarah ke {address}, {range}"),
  loopback_address: text("a loopback address", "alamat loopback"),
  private_address: text("a private address", "alamat privat"),
  link_local_address: text("a link-local address", "alamat link-local"),
  cgnat_address: text("a shared (CGNAT) address", "alamat bersama (CGNAT)"),
  unique_local_address: text("a unique-local address", "alamat unique-local"),
  multicast_address: text("a multicast address", "alamat multicast"),
  unspecified_address: text("an unspecified address", "alamat yang tidak ditentukan"),
  reserved_address: text("a reserved address", "alamat yang dicadangkan"),

  // Webhook deliveries
  answered_http_status: text("it answered HTTP {status}", "endpoint membalas dengan HTTP {status}"),
  no_answer_within: text("no answer within {seconds} seconds", "tidak ada balasan dalam {seconds} detik"),
  could_not_connect: text("could not connect", "tidak dapat terhubung"),
  could_not_connect_because: text("could not connect ({cause})", "tidak dapat terhubung ({cause})"),
  signing_secret_unreadable: text(
    "nothing was sent: its signing secret does not open with this server's secrets (roll the endpoint's secret)",
    "tidak ada yang dikirim: rahasia penandatanganannya tidak dapat dibuka dengan rahasia server ini (ganti rahasia endpoint)"
  ),

  // Workspaces, keys and accounts (admin API)
  domain_name: text("must be a domain name such as example.com", "harus berupa nama domain, misalnya example.com"),
  scopes_at_least_one: text("must list at least one of {scopes}", "harus memuat paling sedikit satu dari {scopes}"),
  sandbox_only: text("is only for sandbox accounts", "hanya untuk akun sandbox"),
  normalized_platform_code: text(
    "must be a normalized platform code such as platform_unavailable",
    "harus berupa kode platform yang dinormalisasi, misalnya platform_unavailable"
  ),

  // An id copied from the documentation as it is (`prof_…`)
  id_placeholder: text(
    '"{value}" is a placeholder from the documentation, not an id: use {source}',
    '"{value}" adalah contoh dari dokumentasi, bukan id: gunakan {source}'
  ),
  placeholder_profile: text(
    "the profile id printed by the server's first start, or one from GET /v1/profiles",
    "id profil yang dicetak saat server pertama kali dijalankan, atau salah satu dari GET /v1/profiles"
  ),
  placeholder_account: text(
    "an account id printed by the server's first start, or one from GET /v1/accounts",
    "id akun yang dicetak saat server pertama kali dijalankan, atau salah satu dari GET /v1/accounts"
  ),
  placeholder_media: text(
    "the id that POST /v1/media answered for your upload",
    "id yang dijawab POST /v1/media untuk unggahan Anda"
  ),
  placeholder_id: text('a real id starting with "{prefix}"', 'id sungguhan yang diawali "{prefix}"'),

  // Profiles and connected accounts
  profile_has_accounts: text(
    "the profile still has {count} connected accounts: disconnect them first",
    "profil ini masih memiliki {count} akun terhubung: putuskan dulu akun tersebut"
  ),
  profile_has_unfinished_posts: text(
    "the profile still has posts that have not finished publishing",
    "profil ini masih memiliki unggahan yang belum selesai diterbitkan"
  ),
  account_disconnected: text("the account is disconnected", "akun ini sudah diputuskan"),

  // Connecting accounts: a Meta signed request (deauthorization callbacks)
  signed_request_bad_signature: text("is not signed with the app secret", "tidak ditandatangani dengan app secret"),
  signed_request_algorithm: text("must be signed with HMAC-SHA256", "harus ditandatangani dengan HMAC-SHA256")
} as const satisfies Record<string, LocalizedText>

/** The name of a reason. */
export type Reason = keyof typeof reasons

/** The values a text's placeholders need: none, or one per `{name}` of its English text. */
export type ValuesOf<En extends string> = [Placeholders<En>] extends [never]
  ? []
  : [values: { readonly [K in Placeholders<En>]: PlaceholderValue }]

/** The values a reason's placeholders need: none, or one per `{name}`. */
export type ReasonValues<R extends Reason> = ValuesOf<(typeof reasons)[R]["en"]>

const fill = (template: LocalizedText, values: Readonly<Record<string, PlaceholderValue>> = {}): LocalizedText => ({
  en: fillPlaceholders(template.en, "en", values),
  id: fillPlaceholders(template.id, "id", values)
})

/** A reason in both languages, its placeholders filled, for a message's `{detail}`. */
export const reason = <R extends Reason>(name: R, ...values: ReasonValues<R>): LocalizedText => fill(reasons[name], values[0])

/**
 * A table of reasons of one's own, in English and Indonesian, and its {@link Catalogue.reason}: a
 * platform plugin's refusal reasons live in its folder (`PlatformPlugin.reasons`), not here.
 */
export interface Catalogue<T extends Readonly<Record<string, LocalizedText>>> {
  /** The texts, by reason name. */
  readonly texts: T
  /** A reason of the table in both languages, its placeholders filled, for a message's `{detail}`. */
  readonly reason: <R extends keyof T & string>(name: R, ...values: ValuesOf<T[R]["en"]>) => LocalizedText
}

/**
 * The catalogue of a table of reasons. Each reason's two texts must hold the same `{placeholders}`
 * (a defect otherwise, found when the module loads).
 *
 * @example
 * ```ts
 * const blog = ErrorDetail.catalogue({
 *   blog_word: { en: 'the blog does not publish the word "{word}"', id: 'blog tidak menerbitkan kata "{word}"' }
 * })
 * blog.reason("blog_word", { word: "forbidden" })
 * ```
 */
export const catalogue = <const T extends Readonly<Record<string, LocalizedText>>>(texts: T): Catalogue<T> => {
  for (const [name, text] of Object.entries(texts)) {
    const problem = textProblem(text)
    if (problem !== undefined) throw new Error(`reason ${name}: ${problem}`)
  }
  return { texts, reason: (name, ...values) => fill(texts[name]!, values[0]) }
}

/** What is wrong with a reason's two texts (empty, the same, or different placeholders), if anything. */
export const textProblem = (text: LocalizedText): string | undefined => {
  const placeholders = (template: string) => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort().join(",")
  if (text.en.trim() === "" || text.id.trim() === "") return "needs an English and an Indonesian text"
  if (text.en === text.id) return "its Indonesian text is its English text"
  if (placeholders(text.en) !== placeholders(text.id)) return "its English and Indonesian texts hold different {placeholders}"
  return undefined
}

/** Every resource a message can name, in both languages. */
export const resources = {
  post: text("post", "unggahan"),
  profile: text("profile", "profil"),
  media: text("media", "media"),
  account: text("account", "akun"),
  approval: text("approval", "persetujuan"),
  webhook_endpoint: text("webhook endpoint", "endpoint webhook"),
  workspace: text("workspace", "workspace"),
  resource: text("resource", "sumber daya"),
  webhook_delivery: text("webhook delivery", "pengiriman webhook"),
  event: text("event", "event"),
  api_key: text("API key", "kunci API"),
  comment: text("comment", "komentar")
} as const satisfies Record<string, LocalizedText>

/** The name of a resource. */
export type Resource = keyof typeof resources

/** A resource name in both languages, for a message's `{resource}`. */
export const resource = (name: Resource): LocalizedText => resources[name]

/** The reason whose English text is exactly `message`, for messages written outside the catalog. */
export const fromEnglish = (message: string): LocalizedText | undefined => {
  for (const entry of Object.values(reasons) as ReadonlyArray<LocalizedText>) {
    if (entry.en === message && !/\{\w+\}/.test(entry.en)) return entry
  }
  return undefined
}

/** The schema annotation key under which a check carries its reason (see {@link annotation}). */
export const annotationKey = "postwire/detail"

/**
 * Annotations that make a schema check fail with a catalog reason: the English text as Effect's
 * `message`, and both texts for the API's error messages.
 *
 * @example
 * ```ts
 * Schema.String.check(Schema.isPattern(/^acc_/, ErrorDetail.annotation(ErrorDetail.reason("id_prefix", { prefix: "acc_" }))))
 * ```
 */
export const annotation = (detail: LocalizedText): { readonly message: string; readonly [annotationKey]: LocalizedText } => ({
  message: detail.en,
  [annotationKey]: detail
})
