/**
 * What a platform plugin is written with, from `@postwire/server` alone: the `PlatformPlugin`
 * type and the types its publisher speaks (the engine's publishing port), the failure it fails
 * with, the rule helpers, and the registry that checks a plugin. Guide: docs/platforms.md.
 *
 * @example
 * ```ts
 * import { PlatformFailure, type PlatformPlugin } from "@postwire/server"
 * ```
 *
 * @since 0.4.0
 */
export type {
  Capabilities as PlatformCapabilities,
  EnvReader as PlatformEnvReader,
  PlatformConnector,
  PlatformPlugin,
  PlatformPublisher
} from "@postwire/platforms"
export { Registry as PlatformRegistry } from "@postwire/platforms"
export type {
  AccountRecord,
  CreatorInfo,
  CredentialsUpdate,
  PermalinkInput,
  PermalinkLookup,
  PublishInput,
  PublishMedia,
  PublishStep
} from "@postwire/core"
export { PlatformFailure } from "@postwire/core"
export { TargetRules } from "@postwire/domain"
// A plugin's connect side (`connect.make`, `connect.form`, `begin`): what it speaks and fails with.
export type {
  AuthorizationRequest,
  BeginAnswer,
  BeginRequest,
  CodeExchange,
  ConnectedIdentity,
  ConnectFormField,
  TokenRefresh,
  TokenRevocation
} from "@postwire/core"
export { ConnectFailure } from "@postwire/core"
