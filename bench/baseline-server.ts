/**
 * The baseline: a bare node:http server answering fixed JSON, in its own process like the real
 * server. `BODY_GET` and `BODY_POST` hold the answers captured from the real server.
 */
import { createServer } from "node:http"

const getBody = process.env.BODY_GET ?? "{}"
const postBody = process.env.BODY_POST ?? "{}"
const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (c: Buffer) => chunks.push(c))
  request.on("end", () => {
    if (request.method === "POST") JSON.parse(Buffer.concat(chunks).toString() || "{}")
    const body = request.method === "POST" ? postBody : getBody
    response.writeHead(request.method === "POST" ? 201 : 200, { "content-type": "application/json" })
    response.end(body)
  })
})
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"))
