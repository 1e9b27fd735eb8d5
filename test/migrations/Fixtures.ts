/**
 * What the migration fixtures (test/migrations/fixtures/<migration>.sql) were written with:
 * the master secret their credentials and approval token are sealed and signed under (the 0.1
 * way: `pwc1` credentials, the HMAC of the approval id under the secret itself), and the test
 * key whose hash they store.
 */

/** The master secret of the fixtures' data; the harness's servers run with it. */
export const fixtureSecret = "fixture-secret-0123456789-abcdefghijklmnopqrstuvwxyz"

/** The API key (test mode, every scope) whose SHA-256 the fixtures store. */
export const fixtureKey = "svc_test_fixture0123456789abcdefghijklmnopqrstuvw"

/** The plain credentials sealed in the fixtures' live account. */
export const fixtureCredentials = { access_token: "fixture-access-token", refresh_token: "fixture-refresh-token" }

/** The captions of the fixtures' two posts. */
export const fixtureCaptions = { awaitingApproval: "Fixture post awaiting approval", scheduled: "Fixture scheduled post" } as const
