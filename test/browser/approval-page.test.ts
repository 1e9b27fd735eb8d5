// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText is the text a person sees
/**
 * The approval page in a real Chromium, driven by playwright-core: what a person with a phone,
 * a mouse or only a keyboard does with an approval link.
 *
 * Chromium is found at `CHROMIUM_PATH` (default `/usr/bin/chromium`). Without it these tests
 * are skipped, unless `REQUIRE_BROWSER=1` (CI), which makes them fail instead. With
 * `UPDATE_SCREENSHOTS=1` the first test also refreshes `docs/approval-page.png`.
 */
import { join } from "node:path"
import type { BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { aPng } from "../support/Media.ts"
import { accountOf, anImage, aPost, aVideo } from "../support/Builders.ts"
import { aPageLandingAt, hasChromium, launchChromium, type TestBrowser } from "../support/Chromium.ts"
import { call } from "../support/Http.ts"
import { aMovableClock } from "../support/MovableClock.ts"
import { startServer, type TestServer } from "../support/TestServer.ts"


const day = 24 * 60 * 60 * 1000

/** The relative WCAG contrast ratio of two computed CSS colours (`rgb(...)`). */
const contrast = (foreground: string, background: string): number => {
  const luminance = (css: string) => {
    const [r, g, b] = (css.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((v) => {
      const c = Number(v) / 255
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
    })
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
  }
  const [light, dark] = [luminance(foreground), luminance(background)].sort((a, b) => b - a)
  return (light! + 0.05) / (dark! + 0.05)
}

describe.skipIf(!hasChromium)("the approval page in Chromium", () => {
  let server: TestServer
  let context: BrowserContext
  let browser: TestBrowser | undefined
  let image: string
  let video: string
  const time = aMovableClock()

  beforeAll(async () => {
    server = await startServer("embedded", {}, { clock: time.clock })
    image = await anImage(server)
    video = await aVideo(server, 12)
    browser = await launchChromium({ viewport: { width: 1024, height: 900 } })
    context = browser.context
  })

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  const createPost = async (overrides: Record<string, unknown>, media: ReadonlyArray<string>) => {
    const reply = await call(server.baseUrl, "POST", "/v1/posts", { key: server.testKey, body: aPost(server, media, overrides) })
    if (reply.status !== 201) throw new Error(`create failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    return reply.body as { id: string; approval: { url: string }; targets: Array<{ id: string }> }
  }
  /** A post with a photo target (an image) and a direct shortvideo target: the consent form shows. */
  const aVideoPostWithConsent = () =>
    createPost(
      {
        caption: "Our new café opens on Saturday! ☕\nCome by for a free flat white.",
        targets: [{ account_id: accountOf(server, "textpost") }, { account_id: accountOf(server, "shortvideo"), shortvideo: { mode: "direct" } }],
        scheduled_at: new Date(Date.now() + 3 * day).toISOString()
      },
      [video]
    )
  const linkOf = (post: { approval: { url: string } }) => server.baseUrl + new URL(post.approval.url).pathname
  const postStatus = async (id: string) =>
    (await call(server.baseUrl, "GET", `/v1/posts/${id}`, { key: server.testKey })).body as {
      status: string
      approval: { status: string }
      targets: Array<{ status: string }>
    }
  /** A tab whose requests to example.com (the workspace's allowed redirect domain) are answered locally. */
  const newPage = (acceptLanguage = "en-GB,en;q=0.9"): Promise<Page> =>
    aPageLandingAt(context, { pattern: "https://example.com/*", heading: "Thanks from Acme", acceptLanguage })

  it("opens a link, fills the consent form, approves, and lands on the redirect", async () => {
    const post = await aVideoPostWithConsent()
    const page = await newPage()
    const redirect = "https://example.com/approved"
    await page.goto(`${linkOf(post)}?redirect_url=${encodeURIComponent(redirect)}`)

    await expect(page.title()).resolves.toContain("Review a post")
    expect(await page.locator(".caption").innerText()).toContain("Our new café opens on Saturday! ☕")
    expect(await page.locator("video").count()).toBe(1)
    expect(await page.locator(".targets").innerText()).toMatch(/TikTok\s+@sandbox-shortvideo/)
    expect(await page.getByText("Posting to the TikTok account of").innerText()).toContain("sandbox-shortvideo")

    const privacy = page.getByLabel("Who can see this video")
    expect(await privacy.inputValue()).toBe("")
    // Commercial content: off by default; its choices appear when it is turned on.
    const yourBrand = page.getByRole("switch", { name: /^Your brand/ })
    expect(await yourBrand.isVisible()).toBe(false)
    await page.getByRole("switch", { name: /^Disclose video content/ }).check()
    expect(await yourBrand.isVisible()).toBe(true)
    // Branded content cannot be private, and brings its policy into the declaration.
    await page.getByRole("switch", { name: /^Branded content/ }).check()
    expect(await page.locator("option[value=SELF_ONLY]").isDisabled()).toBe(true)
    await expect(page.locator("#declaration").innerText()).resolves.toContain("Branded Content Policy and Music Usage Confirmation")
    await page.getByRole("switch", { name: /^Branded content/ }).uncheck()
    await expect(page.locator("#declaration").innerText()).resolves.toBe("By posting, you agree to TikTok's Music Usage Confirmation.")
    await yourBrand.check()
    await privacy.selectOption("FOLLOWER_OF_CREATOR")
    await page.getByRole("switch", { name: "Comment" }).check()

    if (process.env.UPDATE_SCREENSHOTS === "1") {
      await page.setViewportSize({ width: 760, height: 900 })
      await page.screenshot({ path: join(import.meta.dirname, "../../docs/approval-page.png"), fullPage: true })
    }

    await Promise.all([page.waitForURL(redirect), page.getByRole("button", { name: "Approve" }).click()])
    expect(await page.locator("h1").innerText()).toBe("Thanks from Acme")
    const stored = await postStatus(post.id)
    expect(stored.approval.status).toBe("approved")
    expect(stored.targets.map((t) => t.status)).toEqual(["scheduled", "scheduled"])
    await page.close()
  })

  it("rejects with a reason and shows the result", async () => {
    const post = await createPost({ caption: "Spring sale" }, [image])
    const page = await newPage()
    await page.goto(linkOf(post))
    expect(await page.getByRole("img", { name: "Image 1 of 1" }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(4)
    await page.getByLabel("Reason (optional)").fill("The sale starts next week")
    await Promise.all([page.waitForURL(/\/done\?lang=en$/), page.getByRole("button", { name: "Reject" }).click()])
    expect(await page.locator("h1").innerText()).toBe("Post rejected")
    expect(await page.locator(".targets").innerText()).toContain("Rejected")
    expect((await postStatus(post.id)).status).toBe("rejected")
    // Opening the link again says it was used; no second decision is offered.
    await page.goto(linkOf(post))
    expect(await page.locator("h1").innerText()).toBe("This link has been used")
    expect(await page.locator("form").count()).toBe(0)
    await page.close()
  })

  it("speaks Indonesian to an Indonesian browser, and switches language on request", async () => {
    const post = await aVideoPostWithConsent()
    const page = await newPage("id-ID,id;q=0.9,en;q=0.5")
    await page.setViewportSize({ width: 375, height: 740 })
    await page.goto(linkOf(post))
    expect(await page.locator("html").getAttribute("lang")).toBe("id")
    expect(await page.locator("h1").innerText()).toBe("Tinjau unggahan ini sebelum diterbitkan")
    expect(await page.getByLabel("Siapa yang dapat melihat video ini").isVisible()).toBe(true)
    await expect(page.locator("#declaration").innerText()).resolves.toBe(
      "Dengan mengunggah, Anda menyetujui Konfirmasi Penggunaan Musik TikTok."
    )
    expect(await page.getByRole("button", { name: "Setujui" }).isVisible()).toBe(true)
    // Readable on a phone: nothing is wider than the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)

    await page.getByRole("navigation", { name: "Bahasa" }).getByRole("link", { name: "English" }).click()
    await page.waitForURL(/lang=en/)
    expect(await page.locator("h1").innerText()).toBe("Review this post before it is published")
    await page.close()
  })

  it("can be approved with the keyboard alone, with every control labelled and the focus visible", async () => {
    const post = await aVideoPostWithConsent()
    const page = await newPage()
    await page.goto(linkOf(post))

    const unlabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLInputElement>("input:not([type=hidden]), select, textarea"))
        .filter((el) => el.labels === null || el.labels.length === 0)
        .map((el) => el.name)
    )
    expect(unlabelled).toEqual([])
    const colours = await page.evaluate(() => {
      const style = (selector: string) => getComputedStyle(document.querySelector(selector)!)
      return {
        text: [style("body").color, style("body").backgroundColor],
        muted: [style(".muted").color, style("body").backgroundColor],
        approve: [style("button.approve").color, style("button.approve").backgroundColor],
        reject: [style("button.reject").color, style("button.reject").backgroundColor]
      }
    })
    for (const [name, [fg, bg]] of Object.entries(colours)) expect(contrast(fg!, bg!), name).toBeGreaterThanOrEqual(4.5)

    const focused = () => page.evaluate(() => document.activeElement?.id ?? "")
    const tabTo = async (id: string) => {
      for (let presses = 0; presses < 40 && (await focused()) !== id; presses++) await page.keyboard.press("Tab")
      expect(await focused()).toBe(id)
    }
    const target = post.targets[1]!.id
    await tabTo(`privacy-${target}`)
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe("solid")
    await page.keyboard.press("ArrowDown")
    expect(await page.locator(`#privacy-${target}`).inputValue()).toBe("PUBLIC_TO_EVERYONE")
    await tabTo(`stitch-${target}`)
    await page.keyboard.press("Space")
    expect(await page.locator(`#stitch-${target}`).isChecked()).toBe(true)
    await page.keyboard.press("Tab")
    await page.keyboard.press("Tab")
    await page.keyboard.type("Looks good")
    // On past the declaration's links to the button.
    for (let presses = 0; presses < 10; presses++) {
      await page.keyboard.press("Tab")
      if ((await page.evaluate(() => document.activeElement?.textContent)) === "Approve") break
    }
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Approve")
    await Promise.all([page.waitForURL(/\/done\?lang=en$/), page.keyboard.press("Enter")])
    expect(await page.locator("h1").innerText()).toBe("Post approved")
    expect(await page.locator(".result").innerText()).toContain("will be published on")
    expect((await postStatus(post.id)).approval.status).toBe("approved")
    await page.close()
  })

  it("shows photos in their own proportions on a phone and on a desktop", async () => {
    const upload = async (width: number, height: number) => {
      const reply = await call(server.baseUrl, "POST", "/v1/media", {
        key: server.testKey,
        body: { data: Buffer.from(aPng({ width, height })).toString("base64"), filename: `${width}x${height}.png` }
      })
      return reply.body.id as string
    }
    const wide = await upload(720, 477)
    // Portrait at Instagram's tallest feed ratio (4:5): a taller one is refused for the photo target.
    const tall = await upload(600, 750)
    const post = await createPost({ caption: "Two photos" }, [wide, tall])
    for (const viewport of [
      { width: 390, height: 844 },
      { width: 1024, height: 900 }
    ]) {
      const page = await newPage()
      await page.setViewportSize(viewport)
      await page.goto(linkOf(post))
      const images = page.locator(".media img")
      await expect.poll(() => images.evaluateAll((all) => all.every((img) => (img as HTMLImageElement).complete))).toBe(true)
      const shown = await images.evaluateAll((all) =>
        all.map((img) => {
          const box = img.getBoundingClientRect()
          return { width: box.width, height: box.height, natural: (img as HTMLImageElement).naturalWidth / (img as HTMLImageElement).naturalHeight }
        })
      )
      expect(shown).toHaveLength(2)
      for (const { width, height, natural } of shown) {
        expect(Math.abs(width / height / natural - 1), `${width}×${height} at ${viewport.width}×${viewport.height}`).toBeLessThan(0.02)
        expect(width).toBeLessThanOrEqual(viewport.width)
        expect(height).toBeLessThanOrEqual(viewport.height * 0.7 + 1)
      }
      await page.close()
    }
  })

  it("explains a link that has expired, and offers no decision", async () => {
    const post = await createPost({ caption: "Old news" }, [image])
    time.advance(7 * day + 60_000)
    const page = await newPage()
    const response = await page.goto(linkOf(post))
    expect(response?.status()).toBe(410)
    expect(await page.locator("h1").innerText()).toBe("This link has expired")
    expect(await page.locator("main").innerText()).toContain("Ask the person who sent it for a new link")
    expect(await page.locator("form").count()).toBe(0)
    expect((await postStatus(post.id)).approval.status).toBe("expired")
    await page.close()
  })
})
