/**
 * The approval e-mail, worded by the server beside the approval page: both languages, the caption
 * escaped in the HTML part, and the development mailer writing it as an `.eml` file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { type MailMessage, Mailer } from "@postwire/core"
import { FileMailer } from "@postwire/server"
import { approvalEmail } from "../../packages/server/src/approvals/ApprovalEmail.ts"

const message = (overrides: Partial<MailMessage> = {}): MailMessage => ({
  _tag: "ApprovalRequest",
  to: "boss@example.com",
  locale: "en",
  postId: "post_01M8A1B2C3D4E5F6G7H8J9K0MN",
  caption: "<script>alert(1)</script> & more",
  destinations: [
    { platform: "shortvideo", handle: "@tok" },
    { platform: "photo", handle: "acme" }
  ],
  scheduledAt: Date.UTC(2030, 0, 2, 3, 4),
  url: "https://postwire.test/approve/abc?x=1&y=2",
  expiresAt: Date.UTC(2030, 0, 9),
  ...overrides
})

const directories: Array<string> = []
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

describe("the approval e-mail", () => {
  it("escapes the caption and the link in the HTML part, and keeps them as they are in the text", () => {
    const mail = approvalEmail(message())
    expect(mail.html).not.toContain("<script>")
    expect(mail.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; more")
    expect(mail.html).toContain('href="https://postwire.test/approve/abc?x=1&amp;y=2"')
    expect(mail.text).toContain("<script>alert(1)</script> & more")
    expect(mail.text).toContain("https://postwire.test/approve/abc?x=1&y=2")
    expect(mail.text).toContain("TikTok @tok, Instagram @acme")
    expect(mail.text).toContain("2 January 2030 at 03:04 UTC")
    expect(mail.subject).toBe("Please approve a post: <script>alert(1)</script> & more")
  })

  it("speaks the approver's language, and says 'as soon as it is approved' when unscheduled", () => {
    const mail = approvalEmail(message({ locale: "id", scheduledAt: null, caption: "Launch day" }))
    expect(mail.subject).toBe("Mohon setujui unggahan: Launch day")
    expect(mail.text).toContain("Sebuah unggahan menunggu persetujuan Anda")
    expect(mail.text).toContain("Waktu: Segera setelah disetujui")
    expect(mail.html).toContain('<html lang="id">')
  })

  it("shortens a long caption in the subject only", () => {
    const caption = "A".repeat(80)
    const mail = approvalEmail(message({ caption }))
    expect(mail.subject).toBe(`Please approve a post: ${"A".repeat(57)}…`)
    expect(mail.text).toContain(caption)
  })

  it("is written as an .eml file by the development mailer", async () => {
    const directory = mkdtempSync(join(tmpdir(), "postwire-mail-"))
    directories.push(directory)
    await Effect.runPromise(
      Mailer.use((mailer) => mailer.send(message({ locale: "id", caption: "Launch day" }))).pipe(
        Effect.provide(FileMailer.layer(join(directory, "mail"), "Postwire <no-reply@example.com>"))
      )
    )
    const files = readdirSync(join(directory, "mail"))
    expect(files).toHaveLength(1)
    expect(files[0]).toMatch(/\.eml$/)
    const eml = readFileSync(join(directory, "mail", files[0]!), "utf8")
    expect(eml).toMatch(/^From: Postwire <no-reply@example\.com>\r\n/)
    expect(eml).toContain("To: boss@example.com\r\n")
    expect(eml).toContain("Tinjau lalu setujui atau tolak di sini:")
    expect(eml).toContain('href="https://postwire.test/approve/abc?x=1&amp;y=2"')
  })
})
